-- Core tables: store metadata and brands.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

CREATE TABLE brands (
    id               TEXT PRIMARY KEY,
    url              TEXT NOT NULL UNIQUE,
    name             TEXT NOT NULL,
    status           TEXT NOT NULL,
    default_currency TEXT NOT NULL,
    created_at       INTEGER NOT NULL, -- Unix microseconds, UTC
    seq              INTEGER NOT NULL  -- insertion order
) STRICT;
CREATE INDEX brands_created ON brands (created_at, seq);
