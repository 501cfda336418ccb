-- Usernames and email addresses share one namespace per brand (issue 32
-- item 4): a user's username key and email key (auth.FoldKey, now the
-- PRECIS UsernameCaseMapped profile of RFC 8265 then case folding) are
-- rows here, and the primary key refuses a key another user of the brand
-- holds, as username or as address, in the transaction of the write.
-- The Go step of this migration (sqlstore.RekeyUsers) recomputes the
-- stored keys under the new folding where that takes no other user's key,
-- then fills this table, addresses before usernames and older users
-- first; a key two users already share stays with the first, and
-- brandbase user collisions names the others.
CREATE TABLE user_identifiers (
    brand_id TEXT NOT NULL,
    ident    TEXT NOT NULL,                -- auth.FoldKey of a username or email address
    user_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (brand_id, ident)
) STRICT;
CREATE INDEX user_identifiers_user ON user_identifiers (user_id);
