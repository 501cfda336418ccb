package sqlstore

import (
	"context"
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

// PendingMigrations returns the names of the embedded migrations that
// the database has not applied (schema_migrations, one query), in
// version order: none once the store's Open has returned, unless the
// schema was changed behind the store's back, and not one that a newer
// instance applied and this one does not hold. For hosts' readiness
// checks; it fails with the store's error when the database cannot
// answer.
func (c *Core) PendingMigrations(ctx context.Context) ([]string, error) {
	applied, err := QueryAll(ctx, c, c.r, ScanColumn[int], `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	all, err := Migrations(c.fsys, ".")
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

// Migrate applies all, in order and each in its own transaction run by
// begin, up to version upTo (every one when upTo is 0), skipping those
// schema_migrations records: the migration's SQL, then its Go step in
// steps (by file name) if any, then its record. numbered tells the
// placeholders ($1 rather than ?).
func Migrate(ctx context.Context, all []Migration, numbered bool, begin func(context.Context, func(tx DB) error) error,
	steps map[string]func(context.Context, DB) error, upTo int) error {
	bind := func(q string) string {
		if numbered {
			return Rebind(q)
		}
		return q
	}
	for _, m := range all {
		if upTo > 0 && m.Version > upTo {
			break
		}
		err := begin(ctx, func(tx DB) error {
			n, err := ScanColumn[int](tx.QueryRow(ctx, bind(`SELECT count(*) FROM schema_migrations WHERE version = ?`), m.Version))
			if err != nil || n > 0 {
				return err
			}
			if _, err := tx.Exec(ctx, m.Body); err != nil {
				return err
			}
			if step := steps[m.Name]; step != nil {
				if err := step(ctx, tx); err != nil {
					return err
				}
			}
			_, err = tx.Exec(ctx, bind(`INSERT INTO schema_migrations (version, name) VALUES (?, ?)`), m.Version, m.Name)
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return nil
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
