package sqlstore

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Migration is one embedded migration file, named "NNNN_what.sql".
type Migration struct {
	Version int    // NNNN
	Name    string // the file's name
	Body    string // its SQL
}

// Migrations returns the migrations of the *.sql files of dir in fsys, in
// version order.
func Migrations(fsys fs.FS, dir string) ([]Migration, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	out := make([]Migration, 0, len(names))
	for _, name := range names {
		base := path.Base(name)
		num, _, _ := strings.Cut(base, "_")
		version, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number", base)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: version, Name: base, Body: string(body)})
	}
	return out, nil
}

// PendingMigrations returns the names of the migrations of the *.sql
// files of dir in fsys whose version is not among applied (the versions a
// database's schema_migrations records), in version order; none when the
// database is up to date. Versions applied that fsys does not hold (a
// newer instance migrated the database) are not pending.
func PendingMigrations(fsys fs.FS, dir string, applied []int) ([]string, error) {
	all, err := Migrations(fsys, dir)
	if err != nil {
		return nil, err
	}
	var pending []string
	for _, m := range all {
		if !slices.Contains(applied, m.Version) {
			pending = append(pending, m.Name)
		}
	}
	return pending, nil
}

// Renumber returns the versions to move in a database whose
// schema_migrations recorded applied (version -> file name) when the
// embedded migrations all number the same files otherwise: for each
// recorded file that is not the embedded file of its version but is
// embedded under another version (the same name after its number), the
// old version and the migration it is now. None when the database is
// numbered as all. A recorded file that all does not hold (a newer
// instance's) keeps its version.
func Renumber(applied map[int]string, all []Migration) map[int]Migration {
	byVersion := make(map[int]string, len(all))
	byName := make(map[string]Migration, len(all))
	for _, m := range all {
		byVersion[m.Version] = m.Name
		_, what, _ := strings.Cut(m.Name, "_")
		byName[what] = m
	}
	moves := map[int]Migration{}
	for v, name := range applied {
		if byVersion[v] == name {
			continue
		}
		_, what, _ := strings.Cut(name, "_")
		if m, ok := byName[what]; ok && m.Version != v {
			moves[v] = m
		}
	}
	if len(moves) == 0 {
		return nil
	}
	return moves
}
