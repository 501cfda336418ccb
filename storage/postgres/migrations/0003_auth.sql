-- Auth: users of a brand, their key pairs (stored as SHA-256 hashes only)
-- and their devices. NULL where a time is not set (a pair or device not
-- revoked).
CREATE TABLE users (
    id            text PRIMARY KEY,
    brand_id      text NOT NULL REFERENCES brands (id) ON DELETE CASCADE,
    username      text NOT NULL,
    username_key  text NOT NULL,           -- auth.FoldKey(username)
    email_address text NOT NULL,
    email_key     text,                    -- auth.FoldKey(email_address); NULL when empty
    phone_number  text NOT NULL,
    password_hash text NOT NULL,           -- argon2id PHC string or bcrypt hash
    permissions   text[] NOT NULL,         -- sorted
    status        text NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    seq           bigint GENERATED ALWAYS AS IDENTITY -- insertion order
);
CREATE UNIQUE INDEX users_username ON users (brand_id, username_key);
CREATE UNIQUE INDEX users_email ON users (brand_id, email_key);
CREATE INDEX users_brand_created ON users (brand_id, created_at, seq);

CREATE TABLE devices (
    id           text PRIMARY KEY,
    brand_id     text NOT NULL,
    user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code         text NOT NULL,
    token        text NOT NULL,
    name         text NOT NULL,
    app_version  text NOT NULL,
    os           text NOT NULL,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    revoked_at   timestamptz,
    seq          bigint GENERATED ALWAYS AS IDENTITY,
    UNIQUE (user_id, code)
);
CREATE INDEX devices_user_created ON devices (user_id, created_at, seq);

CREATE TABLE key_pairs (
    id                 text PRIMARY KEY,
    family_id          text NOT NULL,
    brand_id           text NOT NULL,
    user_id            text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    device_id          text NOT NULL,      -- '' when the login named no device
    auth_hash          bytea NOT NULL UNIQUE,
    refresh_hash       bytea NOT NULL UNIQUE,
    created_at         timestamptz NOT NULL,
    auth_expires_at    timestamptz NOT NULL,
    refresh_expires_at timestamptz NOT NULL,
    revoked_at         timestamptz,
    replaced_by        text NOT NULL       -- '' unless rotated
);
CREATE INDEX key_pairs_family ON key_pairs (family_id);
CREATE INDEX key_pairs_user ON key_pairs (user_id);
CREATE INDEX key_pairs_device ON key_pairs (device_id) WHERE device_id <> '';
CREATE INDEX key_pairs_refresh_expiry ON key_pairs (refresh_expires_at);
