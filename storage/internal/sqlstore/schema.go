package sqlstore

import (
	"context"
	"slices"

	"github.com/brandbase/brandbase/storage"
)

// SchemaOf compares the migrations a database recorded (version → file
// name, from schema_migrations) with all, the migrations a build embeds.
// A recorded version that all does not hold is Newer; one that all holds
// is Applied (whatever name it was recorded under), the rest of all
// Pending. Each list is in version order.
func SchemaOf(applied map[int]string, all []Migration) storage.SchemaStatus {
	st := storage.SchemaStatus{Applied: []string{}, Pending: []string{}, Newer: []string{}}
	known := make(map[int]bool, len(all))
	for _, m := range all {
		known[m.Version] = true
		if _, ok := applied[m.Version]; ok {
			st.Applied = append(st.Applied, m.Name)
		} else {
			st.Pending = append(st.Pending, m.Name)
		}
	}
	versions := make([]int, 0, len(applied))
	for v := range applied {
		if !known[v] {
			versions = append(versions, v)
		}
	}
	slices.Sort(versions)
	for _, v := range versions {
		st.Newer = append(st.Newer, applied[v])
	}
	return st
}

// Schema returns the status of the store's schema (SchemaOf): the
// migrations its database applied, those this build embeds that it has
// not (none once the store's Open has returned, unless the schema was
// changed behind the store's back), and those a newer build applied that
// this one does not hold. One query; it fails with the store's error
// when the database cannot answer.
func (c *Core) Schema(ctx context.Context) (storage.SchemaStatus, error) {
	type row struct {
		version int
		name    string
	}
	rows, err := QueryAll(ctx, c, c.r, func(sc Scanner) (row, error) {
		var r row
		err := sc.Scan(&r.version, &r.name)
		return r, err
	}, `SELECT version, name FROM schema_migrations`)
	if err != nil {
		return storage.SchemaStatus{}, err
	}
	all, err := Migrations(c.fsys, ".")
	if err != nil {
		return storage.SchemaStatus{}, err
	}
	applied := make(map[int]string, len(rows))
	for _, r := range rows {
		applied[r.version] = r.name
	}
	return SchemaOf(applied, all), nil
}
