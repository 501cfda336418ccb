-- Account (issue 26): each brand's settings (auth.BrandSettings; a brand
-- without a row has the defaults) and the users' password-reset tokens,
-- stored only as SHA-256, one a user (a newer one replaces it).
CREATE TABLE brand_settings (
    brand_id             text PRIMARY KEY REFERENCES brands (id) ON DELETE CASCADE,
    registration_open    boolean NOT NULL,
    max_devices_per_user integer NOT NULL,  -- 0: no cap
    reset_link_origins   text[] NOT NULL,
    updated_at           timestamptz NOT NULL
);

CREATE TABLE password_reset_tokens (
    user_id    text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    brand_id   text NOT NULL,
    token_hash bytea NOT NULL UNIQUE,       -- SHA-256 of the token
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);

-- A user's display names (auth.User.FirstName, LastName, NickName), which
-- sign-up takes.
ALTER TABLE users ADD COLUMN first_name text NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN last_name text NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN nick_name text NOT NULL DEFAULT '';
