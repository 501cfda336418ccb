-- Webhook endpoints: per brand, the URL deliveries are
-- POSTed to, the event types it takes ('*' for all), whether it is
-- enabled, and its signing secret sealed by the key ring (never
-- plaintext); old_secret, after a rotation, signs beside it until
-- old_secret_until. failing_since is the first failed delivery since the
-- last success (NULL while it succeeds).
CREATE TABLE webhooks (
    id               text PRIMARY KEY,
    brand_id         text NOT NULL REFERENCES brands (id) ON DELETE CASCADE,
    url              text NOT NULL,
    event_types      text[] NOT NULL,
    enabled          boolean NOT NULL,
    description      text NOT NULL,
    disabled_reason  text NOT NULL,
    secret           bytea NOT NULL,
    old_secret       bytea,
    old_secret_until timestamptz,
    failing_since    timestamptz,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL
);
CREATE INDEX webhooks_brand ON webhooks (brand_id, created_at, id);
