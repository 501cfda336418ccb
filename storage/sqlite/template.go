package sqlite

// The template database: a freshly migrated database holding the default
// dataset, built once per process, that a new database file (or a
// ":memory:" store) starts as a copy of, instead of loading the dataset
// again.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// template is the process's template database.
type template struct {
	// image is the database, as the bytes of a database file.
	image []byte
	// data are its reference data, as ReadRefData reads them (without a
	// generation: each copy gets its own).
	data refdata.RefData
}

// templateOf returns the process's template database: a freshly
// migrated database holding the default dataset, built once per process
// (by upserts, in a private in-memory database). A database that Open
// creates starts as a copy of it (createFromTemplate, useTemplate), which
// is much cheaper than loading the dataset again (milliseconds instead of
// a tenth of a second), and its reference data are read from memory while
// it holds the template's (Store.ReadRefData).
var templateOf = sync.OnceValues(func() (*template, error) {
	ctx := context.Background() // the image outlives any caller
	db, err := sql.Open("sqlite", ":memory:?_pragma=foreign_keys(1)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: one private database
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	t := &Store{w: db, r: db}
	t.core = newCore(t)
	if err := t.migrate(ctx); err != nil {
		return nil, err
	}
	if err := refdata.LoadDefault(ctx, t); err != nil {
		return nil, err
	}
	// Every copy is a database of its own: Open gives it a generation.
	if _, err := db.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, sqlstore.MetaGeneration); err != nil {
		return nil, err
	}
	tp := &template{}
	if tp.data, err = t.core.ReadRefData(ctx); err != nil {
		return nil, err
	}
	err = rawConn(ctx, db, func(c driverConn) error {
		tp.image, err = c.Serialize()
		return err
	})
	if err != nil || len(tp.image) < 100 { // 100: the database header
		return nil, errors.Join(err, errors.New("sqlite: the template's image is too short"))
	}
	return tp, nil
})

// refData returns a copy of the template's reference data, of generation
// gen, marked as a template's (refdata.RefData.Template): the caller may
// keep or change it.
func (tp *template) refData(gen string) refdata.RefData {
	d := tp.data
	d.Currencies, d.Countries, d.Cities = slices.Clone(d.Currencies), slices.Clone(d.Countries), slices.Clone(d.Cities)
	d.Generation, d.Template = gen, true
	return d
}

// driverConn is the part of the driver's connection that copies whole
// databases.
type driverConn interface {
	Serialize() ([]byte, error)
	Deserialize(buf []byte) error
}

// rawConn runs fn on the driver connection of one of db's connections.
func rawConn(ctx context.Context, db *sql.DB, fn func(driverConn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(driverConn)
		if !ok {
			return errors.New("the driver cannot copy a database")
		}
		return fn(c)
	})
}

// createFromTemplate creates the database file at path as a copy of the
// template image. The copy is written, synced
// and closed under a new name beside path, then hard-linked to path, which
// fails if anything is there: a file that exists (a host's database, an
// empty file, the file of an Open running at the same time) is never
// written, and nobody sees a copy half written. It does nothing when a
// journal or WAL file of path exists (SQLite would apply it to the copy),
// or for a "file:" URI, whose file is not the path. Any failure (a file
// system without hard links, say) leaves path as it was, and Open then
// opens or creates it and loads the dataset by upserts. It reports
// whether it made the copy.
func createFromTemplate(path string) bool {
	if strings.HasPrefix(path, "file:") {
		return false
	}
	for _, p := range []string{path, path + "-wal", path + "-journal"} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	tp, err := templateOf()
	if err != nil {
		return false
	}
	image := tp.image
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.%016x.tmp", filepath.Base(path), rand.Uint64()))
	// 0600: the database holds password and key hashes. SQLite gives the
	// -wal and -shm files the database file's mode.
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, dbFileMode)
	if err != nil {
		return false
	}
	defer os.Remove(tmp)
	// The copy is a WAL database (file format versions 2 at bytes 18 and
	// 19 of its header), as Open makes every database: its first
	// connection then has no journal mode to change, which needs a lock
	// that the connections of concurrent Opens would refuse at once
	// (SQLITE_BUSY, whatever the busy timeout).
	_, err = f.Write(image[:18])
	if err == nil {
		_, err = f.Write([]byte{2, 2})
	}
	if err == nil {
		_, err = f.Write(image[20:])
	}
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return false
	}
	if os.Link(tmp, path) != nil {
		return false
	}
	if d, err := os.Open(dir); err == nil { // make the new name durable
		_ = d.Sync() // not supported everywhere; SQLite syncs it again
		d.Close()
	}
	return true
}

// dbFileMode is the mode of the database files Open creates: readable by
// their owner only, as they hold password and key hashes.
const dbFileMode = 0o600

// createPrivate creates path as an empty file of mode dbFileMode unless
// something is there, so that SQLite, which would create it 0644, finds it
// (an empty file is a new database to SQLite). It is what Open does when
// the template copy was not made; a "file:" URI is left to SQLite.
func createPrivate(path string) {
	if strings.HasPrefix(path, "file:") {
		return
	}
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, dbFileMode); err == nil {
		f.Close()
	}
}

// useTemplate replaces the private in-memory database of db, which Open
// has just created (a ":memory:" store: one connection, nobody else sees
// it), with a copy of the template image. On failure the database is
// left as it was, for Open to load the dataset by upserts. It reports
// whether it made the copy.
func useTemplate(ctx context.Context, db *sql.DB) bool {
	tp, err := templateOf()
	if err != nil {
		return false
	}
	return rawConn(ctx, db, func(c driverConn) error { return c.Deserialize(tp.image) }) == nil
}
