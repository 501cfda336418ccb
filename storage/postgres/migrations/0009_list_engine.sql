-- Lists are answered by the reference-data service from an in-process
-- snapshot (refdata.Service), for every store: the store keeps rows in
-- their order of storage (seq), the natural key of cities (cities_key) and
-- the revision of each city's last write (rev, cities_rev: the changes
-- since a revision). What served SQL lists goes: the trigram and GIN
-- indexes, the gram counters, the sort and filter indexes, the count of
-- cities, and the folded and derived columns but the city's name_fold
-- (part of its natural key). SQLite's 0009 is the same change.
DROP TABLE cities_grams_n;
DROP INDEX cities_name_trgm;
DROP INDEX cities_grams;
DROP INDEX cities_prefixes;
DROP INDEX countries_alpha3;
DROP INDEX cities_country;
DROP INDEX cities_country_name;
DROP INDEX cities_country_state;
DROP INDEX cities_state;
DROP INDEX cities_name;
DROP INDEX cities_tags;
ALTER TABLE refdata_state DROP COLUMN cities;
ALTER TABLE currencies DROP COLUMN name_fold, DROP COLUMN name_plural_fold, DROP COLUMN symbol_fold,
    DROP COLUMN symbol_native_fold, DROP COLUMN tags_key, DROP COLUMN prefixes;
ALTER TABLE countries DROP COLUMN region_fold, DROP COLUMN subregion_fold, DROP COLUMN name_fold,
    DROP COLUMN capital_fold, DROP COLUMN native_fold, DROP COLUMN tags_key, DROP COLUMN prefixes;
ALTER TABLE cities DROP COLUMN tags_key, DROP COLUMN grams, DROP COLUMN prefixes;
