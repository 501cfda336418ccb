-- Reference data: currencies, countries and cities, with their search
-- indexes. Text that is sorted or compared is COLLATE "C", so that it
-- orders by bytes (code points), as every store does.
--
-- Columns named *_fold hold refdata.Fold of the column they follow (the
-- case- and accent-insensitive substring filters, and the sort keys);
-- tags_key holds refdata.TagKey of tags (the Tags filter, the sort by
-- tags); prefixes holds every prefix (of one rune or more) of every
-- folded word of refdata's SearchText: the Keywords filter (every term the
-- prefix of a word) is then prefixes @> terms, one exact GIN lookup per
-- term.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- The revision of the reference data (bumped by every write that changes
-- something) and the number of cities (so that an unfiltered list does
-- not count). City upserts lock this row: they run one at a time.
CREATE TABLE refdata_state (
    id       integer PRIMARY KEY CHECK (id = 1),
    revision bigint NOT NULL,
    cities   bigint NOT NULL
);
INSERT INTO refdata_state (id, revision, cities) VALUES (1, 0, 0);

CREATE TABLE currencies (
    id                 text COLLATE "C" PRIMARY KEY,
    code               text COLLATE "C" NOT NULL UNIQUE,
    name               text NOT NULL,
    name_plural        text NOT NULL,
    symbol             text NOT NULL,
    symbol_native      text NOT NULL,
    decimal_digits     integer NOT NULL,
    rounding           double precision NOT NULL,
    is_coin            boolean NOT NULL,
    tags               text NOT NULL,
    keywords           text NOT NULL,
    name_fold          text COLLATE "C" NOT NULL,
    name_plural_fold   text COLLATE "C" NOT NULL,
    symbol_fold        text COLLATE "C" NOT NULL,
    symbol_native_fold text COLLATE "C" NOT NULL,
    tags_key           text COLLATE "C" NOT NULL,
    prefixes           text[] NOT NULL
);

CREATE TABLE countries (
    id             text COLLATE "C" PRIMARY KEY,
    region         text NOT NULL,
    subregion      text NOT NULL,
    code_alpha2    text COLLATE "C" NOT NULL UNIQUE,
    code_alpha3    text COLLATE "C" NOT NULL,
    code_numeric   integer NOT NULL,
    code_phone     text COLLATE "C" NOT NULL,
    name           text NOT NULL,
    capital        text NOT NULL,
    currency       text COLLATE "C" NOT NULL,
    tld            text COLLATE "C" NOT NULL,
    native         text NOT NULL,
    tags           text NOT NULL,
    keywords       text NOT NULL,
    region_fold    text COLLATE "C" NOT NULL,
    subregion_fold text COLLATE "C" NOT NULL,
    name_fold      text COLLATE "C" NOT NULL,
    capital_fold   text COLLATE "C" NOT NULL,
    native_fold    text COLLATE "C" NOT NULL,
    tags_key       text COLLATE "C" NOT NULL,
    prefixes       text[] NOT NULL
);
CREATE INDEX countries_alpha3 ON countries (code_alpha3);

-- Cities have no public id: seq is the insertion order (dense, from 1:
-- cities are never deleted, and upserts run one at a time) and the
-- default sort. The natural key is (country_code, state_code, name_fold).
-- grams holds the distinct runes and distinct pairs of adjacent runes of
-- name_fold (the Name filter of one or two runes, which trigrams cannot
-- answer); cities_grams_n counts the cities of each, so that the total of
-- such a Name filter alone is read, not counted.
CREATE TABLE cities (
    seq          bigint PRIMARY KEY,
    country_code text COLLATE "C" NOT NULL,
    state_code   text COLLATE "C" NOT NULL,
    name         text NOT NULL,
    tags         text NOT NULL,
    name_fold    text COLLATE "C" NOT NULL,
    tags_key     text COLLATE "C" NOT NULL,
    grams        text[] NOT NULL,
    prefixes     text[] NOT NULL
);
CREATE UNIQUE INDEX cities_key ON cities (country_code, state_code, name_fold);
CREATE INDEX cities_country ON cities (country_code, seq);
CREATE INDEX cities_country_name ON cities (country_code, name_fold, seq);
CREATE INDEX cities_country_state ON cities (country_code, state_code, seq);
CREATE INDEX cities_state ON cities (state_code, seq);
CREATE INDEX cities_name ON cities (name_fold, seq);
CREATE INDEX cities_tags ON cities (tags_key, seq);
-- UpsertCities moves the GIN indexes' pending entries into the indexes at
-- the end of each upsert (gin_clean_pending_list): queries never scan a
-- long pending list, and entries are still added in bulk.
CREATE INDEX cities_name_trgm ON cities USING gin (name_fold gin_trgm_ops);
CREATE INDEX cities_grams ON cities USING gin (grams);
CREATE INDEX cities_prefixes ON cities USING gin (prefixes);

CREATE TABLE cities_grams_n (
    gram text PRIMARY KEY,
    n    bigint NOT NULL
);
