-- Reference data: currencies.
CREATE TABLE currencies (
    id             TEXT PRIMARY KEY,
    code           TEXT NOT NULL UNIQUE,
    name           TEXT NOT NULL,
    name_plural    TEXT NOT NULL,
    symbol         TEXT NOT NULL,
    symbol_native  TEXT NOT NULL,
    decimal_digits INTEGER NOT NULL,
    rounding       REAL NOT NULL,
    is_coin        INTEGER NOT NULL,
    tags           TEXT NOT NULL,
    keywords       TEXT NOT NULL
) STRICT;
