-- Reference data: currencies, countries and cities, with their search indexes.
--
-- Columns named *_fold hold refdata.Fold of the column they follow (case- and
-- accent-insensitive substring filters and sort keys); tags_key holds
-- refdata.TagKey of tags (the Tags filter, sort by tags). The *_kw tables are
-- contentless FTS5 indexes of refdata's SearchText, keyed by the rowid of
-- their table (the Keywords filter: every word a prefix query). Their
-- text is already split into folded words (refdata.Words: letters, digits
-- and combining marks) joined by spaces, so they use the ascii tokenizer,
-- which splits only at ASCII spaces and punctuation and keeps every other
-- rune in its token: unicode61 split words at spacing and enclosing marks
-- (Devanagari, Tamil, ...), so that a word of a query became a phrase,
-- which detail='none' refuses. cities_tri is a trigram index of the folded city names (the Name filter
-- of three runes or more); cities_grams indexes their runes and rune pairs
-- (the Name filter of one or two runes).
-- Currencies and countries are a few hundred rows: their other filters
-- are tested on every row.
CREATE TABLE currencies (
    id                 TEXT PRIMARY KEY,
    code               TEXT NOT NULL UNIQUE,
    name               TEXT NOT NULL,
    name_plural        TEXT NOT NULL,
    symbol             TEXT NOT NULL,
    symbol_native      TEXT NOT NULL,
    decimal_digits     INTEGER NOT NULL,
    rounding           REAL NOT NULL,
    is_coin            INTEGER NOT NULL,
    tags               TEXT NOT NULL,
    keywords           TEXT NOT NULL,
    name_fold          TEXT NOT NULL,
    name_plural_fold   TEXT NOT NULL,
    symbol_fold        TEXT NOT NULL,
    symbol_native_fold TEXT NOT NULL,
    tags_key           TEXT NOT NULL
) STRICT;

CREATE VIRTUAL TABLE currencies_kw USING fts5(kw, content='', contentless_delete=1,
    tokenize='ascii', prefix='1 2 3', detail='none');

CREATE TABLE countries (
    id             TEXT PRIMARY KEY,
    region         TEXT NOT NULL,
    subregion      TEXT NOT NULL,
    code_alpha2    TEXT NOT NULL UNIQUE,
    code_alpha3    TEXT NOT NULL,
    code_numeric   INTEGER NOT NULL,
    code_phone     TEXT NOT NULL,
    name           TEXT NOT NULL,
    capital        TEXT NOT NULL,
    currency       TEXT NOT NULL,
    tld            TEXT NOT NULL,
    native         TEXT NOT NULL,
    tags           TEXT NOT NULL,
    keywords       TEXT NOT NULL,
    region_fold    TEXT NOT NULL,
    subregion_fold TEXT NOT NULL,
    name_fold      TEXT NOT NULL,
    capital_fold   TEXT NOT NULL,
    native_fold    TEXT NOT NULL,
    tags_key       TEXT NOT NULL
) STRICT;
CREATE INDEX countries_alpha3 ON countries (code_alpha3);

CREATE VIRTUAL TABLE countries_kw USING fts5(kw, content='', contentless_delete=1,
    tokenize='ascii', prefix='1 2 3', detail='none');

-- Cities have no public id: seq is the insertion order (dense, from 1, as
-- cities are never deleted) and the default sort. The natural key is
-- (country_code, state_code, name_fold).
CREATE TABLE cities (
    seq          INTEGER PRIMARY KEY,
    country_code TEXT NOT NULL,
    state_code   TEXT NOT NULL,
    name         TEXT NOT NULL,
    tags         TEXT NOT NULL,
    name_fold    TEXT NOT NULL,
    tags_key     TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX cities_key ON cities (country_code, state_code, name_fold);
-- name_fold ends cities_country and cities_state (after seq: their order
-- stays that of the code, then insertion) so that a Name filter that a code
-- drives is tested in the index, without reading the row.
CREATE INDEX cities_country ON cities (country_code, seq, name_fold);
CREATE INDEX cities_country_name ON cities (country_code, name_fold, seq);
CREATE INDEX cities_country_state ON cities (country_code, state_code, seq);
CREATE INDEX cities_state ON cities (state_code, seq, name_fold);
CREATE INDEX cities_name ON cities (name_fold, seq);
CREATE INDEX cities_tags ON cities (tags_key, seq);

CREATE VIRTUAL TABLE cities_kw USING fts5(kw, content='', contentless_delete=1,
    tokenize='ascii', prefix='1 2 3 4', detail='none');
-- A city's folded name never changes (it is part of the natural key), so
-- cities_tri rows are never deleted and need no row sizes. Positions
-- (detail=full) make a quoted name an exact substring query, and
-- case_sensitive keeps SQLite from folding what refdata.Fold folded.
CREATE VIRTUAL TABLE cities_tri USING fts5(name_fold, content='', columnsize=0,
    tokenize='trigram case_sensitive 1', detail='full');
-- cities_grams holds, for each city, one token per distinct rune and per
-- distinct pair of adjacent runes of its folded name, spelled as the hex
-- code points (a pair joined by "x": "7a", "7ax75"), which the ascii
-- tokenizer keeps whole: a name of one or two runes is then one token
-- query, exact, whatever the script. Never deleted, as cities_tri.
-- cities_grams_n counts the cities of each token, so that the total of
-- such a Name filter alone is read, not counted (a rune can be in most
-- names).
CREATE VIRTUAL TABLE cities_grams USING fts5(grams, content='', columnsize=0,
    tokenize='ascii', detail='none');
CREATE TABLE cities_grams_n (
    gram TEXT PRIMARY KEY,
    n    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Row counts kept by triggers, so that an unfiltered list does not count.
CREATE TABLE refdata_counts (
    name TEXT PRIMARY KEY,
    n    INTEGER NOT NULL
) STRICT;
INSERT INTO refdata_counts (name, n) VALUES ('cities', 0);
CREATE TRIGGER cities_count_insert AFTER INSERT ON cities BEGIN
    UPDATE refdata_counts SET n = n + 1 WHERE name = 'cities';
END;
CREATE TRIGGER cities_count_delete AFTER DELETE ON cities BEGIN
    UPDATE refdata_counts SET n = n - 1 WHERE name = 'cities';
END;
