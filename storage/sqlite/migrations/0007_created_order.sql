-- The order of storage of currencies and countries (SortDataField =
-- createdDate): seq is a row's place in it, given on insert (the largest
-- seq plus one) and kept by an upsert that replaces the row. The rows
-- stored before this migration are numbered by its Go step
-- (numberStored, in tables.go): the embedded dataset's records in the
-- dataset's order, then the others in rowid order.
ALTER TABLE currencies ADD COLUMN seq INTEGER;
ALTER TABLE countries ADD COLUMN seq INTEGER;
CREATE UNIQUE INDEX currencies_seq ON currencies (seq);
CREATE UNIQUE INDEX countries_seq ON countries (seq);
