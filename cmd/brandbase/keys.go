package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage/storeurl"
)

func runKeys(ctx context.Context, c *cli, args []string) error {
	return subcommand(ctx, c, "keys", args, map[string]func(context.Context, *cli, []string) error{
		"generate": keysGenerate, "rotate": keysRotate,
	}, []string{"generate", "rotate"})
}

// keyFileHeader starts every key file the command writes.
const keyFileHeader = "# brandbase secret-encryption keys: <id>:<base64 key>, the first one encrypts.\n" +
	"# Rotate with: brandbase keys rotate --secret-keys-file THIS_FILE\n"

// newKeyID returns the ID of a key made now: k and the UTC time.
func newKeyID(now time.Time) string { return "k" + now.UTC().Format("20060102T150405") }

type generatedKey struct {
	ID   string `json:"id"`
	File string `json:"file,omitempty"`
	// Line is the key ring entry; only when no file was written.
	Line string `json:"line,omitempty"`
}

func keysGenerate(_ context.Context, c *cli, args []string) error {
	f := newFlags(c, "keys generate", "brandbase keys generate [--out FILE] [--id ID]")
	out := f.String("out", "", "write a new key file here (mode 0600; refused if it exists) instead of printing the key")
	id := f.String("id", "", "the key's ID (default k and the UTC time)")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos); err != nil {
		return err
	}
	if *id == "" {
		*id = newKeyID(time.Now())
	}
	line := integrations.FormatKey(*id, integrations.GenerateKey())
	if _, err := integrations.ParseKeyRing([]byte(line)); err != nil {
		return usagef("--id %q: %v", *id, describe(err))
	}
	g := generatedKey{ID: *id}
	if *out == "" {
		g.Line = strings.TrimSpace(line)
		return f.out(g, func(w io.Writer) error { _, err := io.WriteString(w, line); return err })
	}
	file, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists: keys generate never overwrites a key file (keys rotate adds a key to it)", *out)
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(file, keyFileHeader+line)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	g.File = *out
	return f.out(g, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "key %s written to %s (mode 0600): set BRANDBASE_SECRET_KEYS_FILE=%s on every instance\n", g.ID, g.File, g.File)
		return err
	})
}

// rotation is what keys rotate did.
type rotation struct {
	// Primary is the key that encrypts now.
	Primary string `json:"primary"`
	// Added is the key this run added ("" when it resumed a rotation).
	Added string `json:"added,omitempty"`
	// Reencrypted is how many secrets were re-encrypted under Primary.
	Reencrypted int `json:"reencrypted"`
	// Retired are the keys dropped from the ring; Kept those still in it.
	Retired []string `json:"retired"`
	Kept    []string `json:"kept"`
	// Next says what to do next, when anything.
	Next string `json:"next,omitempty"`
}

func keysRotate(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "keys rotate", "brandbase keys rotate [--retire] [flags]")
	retire := f.Bool("retire", false, "drop the old keys from the key file once no secret needs them (every instance must run with the new key first)")
	id := f.String("id", "", "the new key's ID (default k and the UTC time)")
	db, err := f.dbOnly(args)
	if err != nil {
		return err
	}
	keys, source, err := f.keyRing()
	if err != nil {
		return err
	}
	if keys == nil {
		return errNoKeyRing
	}
	if db == storeurl.MemoryPath {
		return usagef("keys rotate needs a database that outlives the command, not :memory:")
	}
	fromFile := source != secretKeysEnv
	var r rotation
	// Step 1: a new key, first in the file, unless a rotation is under
	// way (the ring holds older keys still) and this run resumes it.
	if len(keys.KeyIDs()) == 1 {
		if !fromFile {
			return errors.New("the key ring is in BRANDBASE_SECRET_KEYS, which the command cannot rewrite: put a new key first in it " +
				"(brandbase keys generate prints one), restart the instances with it, and run keys rotate again; or keep the ring in a file (--secret-keys-file)")
		}
		if *id == "" {
			*id = newKeyID(time.Now())
		}
		next, err := addKey(f.common.keysFile, *id)
		if err != nil {
			return err
		}
		keys, r.Added = next, *id
	}
	r.Primary = keys.Primary()
	// Step 2: every secret under the primary, brand by brand in batches
	// (each its own transaction); a rerun resumes an interrupted run, as
	// it skips what the primary sealed already.
	app, done, err := openWithKeys(ctx, f, db, keys)
	if err != nil {
		return err
	}
	defer done()
	if r.Reencrypted, err = f.c.reseal(ctx, app); err != nil {
		return fmt.Errorf("re-encrypt the secrets (the batches done are kept; run keys rotate again to resume): %w", describe(err))
	}
	old := slices.DeleteFunc(keys.KeyIDs(), func(k string) bool { return k == r.Primary })
	r.Retired, r.Kept = []string{}, old
	// Step 3: the old keys go once nothing needs them: a second pass finds
	// no secret left under them (an instance still on the old ring may
	// have written one meanwhile).
	if !*retire || !fromFile {
		switch {
		case !fromFile:
			r.Next = "every secret is under " + r.Primary + ": once every instance runs with it, drop " + strings.Join(old, ", ") + " from BRANDBASE_SECRET_KEYS"
		default:
			r.Next = "restart every instance with " + f.common.keysFile + " (they read it at start), then run brandbase keys rotate --retire to drop " + strings.Join(old, ", ")
		}
		return printRotation(f, r)
	}
	again, err := f.c.reseal(ctx, app)
	if err != nil {
		return fmt.Errorf("re-encrypt the secrets: %w", describe(err))
	}
	if again > 0 {
		r.Reencrypted += again
		return fmt.Errorf("%d secrets were written under an old key during the rotation: restart every instance with %s, then run keys rotate --retire again", again, f.common.keysFile)
	}
	if err := keepOnly(f.common.keysFile, r.Primary); err != nil {
		return err
	}
	r.Retired, r.Kept = old, []string{}
	return printRotation(f, r)
}

// reseal re-seals every secret under the primary key, with a progress line
// on stderr after each committed batch, and answers how many it re-sealed.
func (c *cli) reseal(ctx context.Context, app *brandbase.App) (int, error) {
	rep, err := app.Integrations.RotateSecrets(ctx, integrations.RotateOptions{Progress: func(p integrations.RotateReport) {
		fmt.Fprintf(c.stderr, "keys rotate: %d brands and %d configurations read, %d secrets re-encrypted in %d batches\n",
			p.Brands, p.Configs, p.Resealed, p.Batches)
	}})
	return rep.Resealed, err
}

func printRotation(f *flags, r rotation) error {
	return f.out(r, func(w io.Writer) error {
		err := printFields(w, [][2]string{{"primary", r.Primary}, {"added", orDash(r.Added)},
			{"re-encrypted", fmt.Sprint(r.Reencrypted)}, {"retired", orDash(strings.Join(r.Retired, ", "))},
			{"kept", orDash(strings.Join(r.Kept, ", "))}})
		if r.Next != "" {
			fmt.Fprintf(w, "next: %s\n", r.Next)
		}
		return err
	})
}

// openWithKeys opens the App on db with keys.
func openWithKeys(ctx context.Context, f *flags, db string, keys *integrations.KeyRing) (*brandbase.App, func(), error) {
	logger := f.c.adminLogger()
	store, err := storeurl.Open(ctx, db, storeurl.Options{Logger: logger})
	if err != nil {
		return nil, nil, fmt.Errorf("cannot open the database %s: %w (check --db or BRANDBASE_DATABASE_URL)", storeurl.Redact(db), err)
	}
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: keys, Logger: logger, OutboxManualStart: true})
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return app, func() { app.Close(); store.Close() }, nil
}

// addKey puts a new key, id, first in the key file at path (which
// becomes its primary), keeping the others, and returns the new ring.
func addKey(path, id string) (*integrations.KeyRing, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var kept []string
	for line := range strings.SplitSeq(string(b), "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			if k, _, _ := strings.Cut(t, ":"); strings.TrimSpace(k) == id {
				return nil, usagef("the key file already holds a key %q: give another --id", id)
			}
			kept = append(kept, t+"\n")
		}
	}
	text := keyFileHeader + integrations.FormatKey(id, integrations.GenerateKey()) + strings.Join(kept, "")
	keys, err := integrations.ParseKeyRing([]byte(text))
	if err != nil {
		return nil, describe(err)
	}
	return keys, writeFileAtomic(path, text)
}

// keepOnly rewrites the key file at path with only the key id.
func keepOnly(path, id string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var keep string
	for line := range strings.SplitSeq(string(b), "\n") {
		t := strings.TrimSpace(line)
		if k, _, ok := strings.Cut(t, ":"); ok && !strings.HasPrefix(t, "#") && strings.TrimSpace(k) == id {
			keep = t + "\n"
		}
	}
	if keep == "" {
		return fmt.Errorf("the key file %s no longer holds %s: nothing retired", path, id)
	}
	return writeFileAtomic(path, keyFileHeader+keep)
}

// writeFileAtomic replaces path with text (mode 0600): a reader sees the
// old file or the new, never half of one.
func writeFileAtomic(path, text string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
