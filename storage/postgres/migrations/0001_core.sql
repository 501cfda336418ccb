-- Core tables: store metadata, brands, and the buckets of the shared rate
-- limiter. Times are timestamptz (microseconds, as every store keeps them).
CREATE TABLE meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);

CREATE TABLE brands (
    id               text PRIMARY KEY,
    url              text NOT NULL UNIQUE,
    name             text NOT NULL,
    status           text NOT NULL,
    default_currency text NOT NULL,
    created_at       timestamptz NOT NULL,
    seq              bigint GENERATED ALWAYS AS IDENTITY -- insertion order
);
CREATE INDEX brands_created ON brands (created_at, seq);

-- One token bucket per key, shared by every instance (limiter.go).
CREATE TABLE rate_buckets (
    key        text PRIMARY KEY,
    tokens     double precision NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX rate_buckets_updated ON rate_buckets (updated_at);
