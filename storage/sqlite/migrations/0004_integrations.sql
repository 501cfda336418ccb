-- Integrations: app integrations, their analytics and payment-gateway
-- configurations, and the revisions of every update. Secrets (api_key,
-- api_secret, private_key) are ciphertexts sealed by the integrations
-- service's key ring; no plaintext secret is ever written here.
CREATE TABLE app_integrations (
    id          TEXT PRIMARY KEY,
    brand_id    TEXT NOT NULL REFERENCES brands (id),
    type        TEXT NOT NULL,
    name        TEXT NOT NULL,
    domain      TEXT NOT NULL,
    description TEXT NOT NULL,
    logo_url    TEXT,
    status      TEXT NOT NULL,
    version     INTEGER NOT NULL,
    created_at  INTEGER NOT NULL, -- Unix microseconds, UTC
    updated_at  INTEGER NOT NULL,
    UNIQUE (brand_id, id)         -- the target of the configurations' brand-scoped reference
) STRICT;
CREATE INDEX app_integrations_brand ON app_integrations (brand_id, created_at, id);

CREATE TABLE analytics_integrations (
    id                   TEXT PRIMARY KEY,
    brand_id             TEXT NOT NULL,
    app_integration_id   TEXT NOT NULL,
    tracking_id          TEXT NOT NULL,
    api_key              BLOB NOT NULL,
    api_secret           BLOB,
    metadata             TEXT,
    account_config_notes TEXT,
    is_default           INTEGER NOT NULL,
    status               TEXT NOT NULL,
    version              INTEGER NOT NULL,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    FOREIGN KEY (brand_id, app_integration_id) REFERENCES app_integrations (brand_id, id)
) STRICT;
CREATE INDEX analytics_integrations_brand ON analytics_integrations (brand_id, created_at, id);
CREATE INDEX analytics_integrations_app ON analytics_integrations (brand_id, app_integration_id);
-- At most one default per brand.
CREATE UNIQUE INDEX analytics_integrations_default ON analytics_integrations (brand_id) WHERE is_default = 1;

CREATE TABLE payment_gateway_integrations (
    id                        TEXT PRIMARY KEY,
    brand_id                  TEXT NOT NULL,
    app_integration_id        TEXT NOT NULL,
    name                      TEXT NOT NULL,
    ipn_listener_link         TEXT,
    cancel_link_without_login TEXT,
    cancel_link               TEXT,
    return_link               TEXT,
    public_key                TEXT,
    private_key               BLOB,
    description               TEXT,
    notes                     TEXT,
    test_mode                 INTEGER NOT NULL,
    is_default                INTEGER NOT NULL,
    status                    TEXT NOT NULL,
    version                   INTEGER NOT NULL,
    created_at                INTEGER NOT NULL,
    updated_at                INTEGER NOT NULL,
    FOREIGN KEY (brand_id, app_integration_id) REFERENCES app_integrations (brand_id, id)
) STRICT;
CREATE INDEX payment_gateway_integrations_brand ON payment_gateway_integrations (brand_id, created_at, id);
CREATE INDEX payment_gateway_integrations_app ON payment_gateway_integrations (brand_id, app_integration_id);
CREATE UNIQUE INDEX payment_gateway_integrations_default ON payment_gateway_integrations (brand_id) WHERE is_default = 1;

CREATE TABLE integration_revisions (
    seq           INTEGER PRIMARY KEY, -- the order written
    id            TEXT NOT NULL UNIQUE,
    brand_id      TEXT NOT NULL REFERENCES brands (id),
    kind          TEXT NOT NULL,
    record_id     TEXT NOT NULL,
    version       INTEGER NOT NULL,
    actor_user_id TEXT NOT NULL,
    at            INTEGER NOT NULL,
    fields        TEXT NOT NULL,       -- changed field names, comma-separated
    UNIQUE (kind, record_id, version)
) STRICT;
CREATE INDEX integration_revisions_record ON integration_revisions (brand_id, record_id, seq);
