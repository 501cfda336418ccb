-- Auth: users of a brand, their key pairs (stored as SHA-256 hashes only)
-- and their devices. Times are Unix microseconds, UTC; NULL where a time
-- is not set (a pair or device not revoked).
CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    brand_id      TEXT NOT NULL REFERENCES brands (id) ON DELETE CASCADE,
    username      TEXT NOT NULL,
    username_key  TEXT NOT NULL,           -- auth.FoldKey(username)
    email_address TEXT NOT NULL,
    email_key     TEXT,                    -- auth.FoldKey(email_address); NULL when empty
    phone_number  TEXT NOT NULL,
    password_hash TEXT NOT NULL,           -- argon2id PHC string or bcrypt hash
    permissions   TEXT NOT NULL,           -- comma-separated, sorted
    status        TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    seq           INTEGER NOT NULL         -- insertion order
) STRICT;
CREATE UNIQUE INDEX users_username ON users (brand_id, username_key);
CREATE UNIQUE INDEX users_email ON users (brand_id, email_key);
CREATE INDEX users_brand_created ON users (brand_id, created_at, seq);

CREATE TABLE devices (
    id           TEXT PRIMARY KEY,
    brand_id     TEXT NOT NULL,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code         TEXT NOT NULL,
    token        TEXT NOT NULL,
    name         TEXT NOT NULL,
    app_version  TEXT NOT NULL,
    os           TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    revoked_at   INTEGER,
    seq          INTEGER NOT NULL,
    UNIQUE (user_id, code)
) STRICT;

CREATE TABLE key_pairs (
    id                 TEXT PRIMARY KEY,
    family_id          TEXT NOT NULL,
    brand_id           TEXT NOT NULL,
    user_id            TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    device_id          TEXT NOT NULL,      -- '' when the login named no device
    auth_hash          BLOB NOT NULL UNIQUE,
    refresh_hash       BLOB NOT NULL UNIQUE,
    created_at         INTEGER NOT NULL,
    auth_expires_at    INTEGER NOT NULL,
    refresh_expires_at INTEGER NOT NULL,
    revoked_at         INTEGER,
    replaced_by        TEXT NOT NULL       -- '' unless rotated
) STRICT;
CREATE INDEX key_pairs_family ON key_pairs (family_id);
CREATE INDEX key_pairs_user ON key_pairs (user_id);
CREATE INDEX key_pairs_device ON key_pairs (device_id) WHERE device_id <> '';
CREATE INDEX key_pairs_refresh_expiry ON key_pairs (refresh_expires_at);
