-- Account (issue 26): each brand's settings (auth.BrandSettings; a brand
-- without a row has the defaults) and the users' password-reset tokens,
-- stored only as SHA-256, one a user (a newer one replaces it). Times are
-- Unix microseconds, UTC.
CREATE TABLE brand_settings (
    brand_id             TEXT PRIMARY KEY REFERENCES brands (id) ON DELETE CASCADE,
    registration_open    INTEGER NOT NULL,  -- 0 or 1
    max_devices_per_user INTEGER NOT NULL,  -- 0: no cap
    reset_link_origins   TEXT NOT NULL,     -- comma-separated origins
    updated_at           INTEGER NOT NULL
) STRICT;

CREATE TABLE password_reset_tokens (
    user_id    TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    brand_id   TEXT NOT NULL,
    token_hash BLOB NOT NULL UNIQUE,        -- SHA-256 of the token
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;

-- A user's display names (auth.User.FirstName, LastName, NickName), which
-- sign-up takes.
ALTER TABLE users ADD COLUMN first_name TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN last_name TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN nick_name TEXT NOT NULL DEFAULT '';
