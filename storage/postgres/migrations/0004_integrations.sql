-- Integrations: app integrations, the configurations of every kind in one
-- table (a kind, the shared header columns, the JSON body of the kind's
-- own fields, and the sealed secrets), and the revisions of every update.
-- secrets is NULL or a JSON object mapping each secret field's name to its
-- ciphertext in hex: ciphertexts sealed by the integrations service's key
-- ring; no plaintext secret is ever written here.
CREATE TABLE app_integrations (
    id          text PRIMARY KEY,
    brand_id    text NOT NULL,
    type        text NOT NULL,
    name        text NOT NULL,
    domain      text NOT NULL,
    description text NOT NULL,
    logo_url    text,
    status      text NOT NULL,
    version     bigint NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    CONSTRAINT app_integrations_brand FOREIGN KEY (brand_id) REFERENCES brands (id),
    UNIQUE (brand_id, id)         -- the target of the configurations' brand-scoped reference
);
CREATE INDEX app_integrations_brand_created ON app_integrations (brand_id, created_at, id);

-- The brand's reference is declared first: of two missing references, the
-- brand's is reported.
CREATE TABLE integration_configs (
    id                 text PRIMARY KEY,
    kind               text NOT NULL,
    brand_id           text NOT NULL,
    app_integration_id text NOT NULL,
    is_default         boolean NOT NULL,
    status             text NOT NULL,
    version            bigint NOT NULL,
    body               text NOT NULL,
    secrets            text,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL,
    CONSTRAINT integration_configs_brand FOREIGN KEY (brand_id) REFERENCES brands (id),
    CONSTRAINT integration_configs_app FOREIGN KEY (brand_id, app_integration_id)
        REFERENCES app_integrations (brand_id, id)
);
CREATE INDEX integration_configs_brand_created ON integration_configs (brand_id, kind, created_at, id);
CREATE INDEX integration_configs_app_id ON integration_configs (brand_id, app_integration_id);
-- At most one default per brand and kind.
CREATE UNIQUE INDEX integration_configs_default ON integration_configs (brand_id, kind) WHERE is_default;

CREATE TABLE integration_revisions (
    seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- the order written
    id            text NOT NULL,
    brand_id      text NOT NULL,
    kind          text NOT NULL,
    record_id     text NOT NULL,
    version       bigint NOT NULL,
    actor_user_id text NOT NULL,
    at            timestamptz NOT NULL,
    fields        text[] NOT NULL,     -- the names of the changed fields
    CONSTRAINT integration_revisions_brand FOREIGN KEY (brand_id) REFERENCES brands (id),
    CONSTRAINT integration_revisions_id UNIQUE (id),
    CONSTRAINT integration_revisions_version UNIQUE (kind, record_id, version)
);
CREATE INDEX integration_revisions_record ON integration_revisions (brand_id, record_id, seq);
