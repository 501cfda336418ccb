-- The administration of users: the list of a
-- brand's users filtered, sorted and paged by index, and its keyword
-- search.
-- user_words holds each user's search words (auth.UserWords: the folded
-- words of its username, email address and names), written with the
-- user; a keyword (every word of it the start of one of the user's) is a
-- range of the primary key, brand first. The Go step of this migration
-- (sqlstore.FillUserWords) writes the words of the users stored before.
CREATE TABLE user_words (
    brand_id TEXT NOT NULL,
    word     TEXT NOT NULL,
    user_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (brand_id, word, user_id)
) STRICT;
CREATE INDEX user_words_user ON user_words (user_id);
-- The orders of a list (sort by id; by status, then creation), and the
-- status filter with the creation order. users_brand_created (creation)
-- and users_username (username) serve the others.
CREATE INDEX users_brand_id ON users (brand_id, id);
CREATE INDEX users_brand_status ON users (brand_id, status, created_at, seq);
