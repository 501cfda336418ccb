-- The reference-data revision of the write that last inserted or changed
-- each city (0 for the cities stored before this migration), so that an
-- instance whose in-process index (refdata/refindex) is at an older
-- revision reads the cities changed since, not every city
-- (Store.CitiesChangedSince).
ALTER TABLE cities ADD COLUMN rev bigint NOT NULL DEFAULT 0;
CREATE INDEX cities_rev ON cities (rev, seq);
