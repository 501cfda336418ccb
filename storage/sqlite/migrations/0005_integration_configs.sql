-- One table for the configurations of every integration kind, replacing
-- analytics_integrations and payment_gateway_integrations (whose rows are
-- copied here, then the tables dropped). body is the JSON object of the
-- kind's non-secret fields; secrets is NULL or a JSON object mapping each
-- secret field's name to its ciphertext in hex: ciphertexts sealed by the
-- integrations service's key ring, never plaintext.
CREATE TABLE integration_configs (
    id                 TEXT PRIMARY KEY,
    kind               TEXT NOT NULL,
    brand_id           TEXT NOT NULL,
    app_integration_id TEXT NOT NULL,
    is_default         INTEGER NOT NULL,
    status             TEXT NOT NULL,
    version            INTEGER NOT NULL,
    body               TEXT NOT NULL,
    secrets            BLOB,
    created_at         INTEGER NOT NULL, -- Unix microseconds, UTC
    updated_at         INTEGER NOT NULL,
    FOREIGN KEY (brand_id, app_integration_id) REFERENCES app_integrations (brand_id, id)
) STRICT;
CREATE INDEX integration_configs_brand ON integration_configs (brand_id, kind, created_at, id);
CREATE INDEX integration_configs_app ON integration_configs (brand_id, app_integration_id);
-- At most one default per brand and kind.
CREATE UNIQUE INDEX integration_configs_default ON integration_configs (brand_id, kind) WHERE is_default = 1;

INSERT INTO integration_configs
SELECT id, 'Analytics', brand_id, app_integration_id, is_default, status, version,
    json_object('trackingId', tracking_id, 'metadata', metadata, 'accountConfigNotes', account_config_notes),
    CAST(CASE WHEN api_secret IS NULL THEN json_object('apiKey', hex(api_key))
        ELSE json_object('apiKey', hex(api_key), 'apiSecret', hex(api_secret)) END AS BLOB),
    created_at, updated_at
FROM analytics_integrations;

INSERT INTO integration_configs
SELECT id, 'PaymentGateway', brand_id, app_integration_id, is_default, status, version,
    json_object('name', name, 'ipnListenerLink', ipn_listener_link,
        'cancelLinkWithoutLogin', cancel_link_without_login, 'cancelLink', cancel_link,
        'returnLink', return_link, 'publicKey', public_key, 'description', description, 'notes', notes,
        'testMode', json(CASE WHEN test_mode <> 0 THEN 'true' ELSE 'false' END)),
    CASE WHEN private_key IS NULL THEN NULL
        ELSE CAST(json_object('privateKey', hex(private_key)) AS BLOB) END,
    created_at, updated_at
FROM payment_gateway_integrations;

DROP TABLE analytics_integrations;
DROP TABLE payment_gateway_integrations;
