-- Webhook endpoints: per brand, the URL deliveries are
-- POSTed to, the event types it takes (comma-separated, sorted; '*' for
-- all), whether it is enabled, and its signing secret sealed by the key
-- ring (never plaintext); old_secret, after a rotation, signs beside it
-- until old_secret_until. failing_since is the first failed delivery since
-- the last success (NULL while it succeeds).
CREATE TABLE webhooks (
    id               TEXT PRIMARY KEY,
    brand_id         TEXT NOT NULL REFERENCES brands (id) ON DELETE CASCADE,
    url              TEXT NOT NULL,
    event_types      TEXT NOT NULL,
    enabled          INTEGER NOT NULL,
    description      TEXT NOT NULL,
    disabled_reason  TEXT NOT NULL,
    secret           BLOB NOT NULL,
    old_secret       BLOB,
    old_secret_until INTEGER,
    failing_since    INTEGER,
    created_at       INTEGER NOT NULL, -- Unix microseconds, UTC
    updated_at       INTEGER NOT NULL
) STRICT;
CREATE INDEX webhooks_brand ON webhooks (brand_id, created_at, id);
