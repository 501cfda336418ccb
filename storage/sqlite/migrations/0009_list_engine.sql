-- Lists are answered by the reference-data service from an in-process
-- snapshot (refdata.Service), for every store: the store keeps rows in
-- their order of storage (seq), the natural key of cities (cities_key) and
-- the revision of each city's last write (rev, cities_rev: the changes
-- since a revision). What served SQL lists goes: the full-text tables, the
-- counters and their triggers, the sort and filter indexes, and the
-- folded columns but the city's name_fold (part of its natural key).
DROP TRIGGER cities_count_insert;
DROP TRIGGER cities_count_delete;
DROP TABLE refdata_counts;
DROP TABLE currencies_kw;
DROP TABLE countries_kw;
DROP TABLE cities_kw;
DROP TABLE cities_tri;
DROP TABLE cities_grams;
DROP TABLE cities_grams_n;
DROP INDEX countries_alpha3;
DROP INDEX cities_country;
DROP INDEX cities_country_name;
DROP INDEX cities_country_state;
DROP INDEX cities_state;
DROP INDEX cities_name;
DROP INDEX cities_tags;
ALTER TABLE currencies DROP COLUMN name_fold;
ALTER TABLE currencies DROP COLUMN name_plural_fold;
ALTER TABLE currencies DROP COLUMN symbol_fold;
ALTER TABLE currencies DROP COLUMN symbol_native_fold;
ALTER TABLE currencies DROP COLUMN tags_key;
ALTER TABLE countries DROP COLUMN region_fold;
ALTER TABLE countries DROP COLUMN subregion_fold;
ALTER TABLE countries DROP COLUMN name_fold;
ALTER TABLE countries DROP COLUMN capital_fold;
ALTER TABLE countries DROP COLUMN native_fold;
ALTER TABLE countries DROP COLUMN tags_key;
ALTER TABLE cities DROP COLUMN tags_key;
