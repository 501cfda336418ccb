package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage/storeurl"
)

// secretKeysEnv holds the key ring itself; it has no flag.
const secretKeysEnv = "BRANDBASE_SECRET_KEYS"

// errNoKeyRing says what to do when a command needs the key ring.
var errNoKeyRing = errors.New("no secrets key ring: set BRANDBASE_SECRET_KEYS, or give --secret-keys-file (or BRANDBASE_SECRET_KEYS_FILE); " +
	"brandbase keys generate --out FILE makes one, and every instance on the database needs the same ring")

// keyRing reads the key ring from BRANDBASE_SECRET_KEYS or the key file,
// and tells where it came from ("" and nil when neither is set).
func (f *flags) keyRing() (*integrations.KeyRing, string, error) {
	text := f.c.getenv(secretKeysEnv)
	switch {
	case text != "" && f.common.keysFile != "":
		return nil, "", usagef("both %s and a key file are set: keep one", secretKeysEnv)
	case text != "":
		k, err := integrations.ParseKeyRing([]byte(strings.ReplaceAll(text, ",", "\n")))
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", secretKeysEnv, err)
		}
		return k, secretKeysEnv, nil
	case f.common.keysFile != "":
		b, err := os.ReadFile(f.common.keysFile)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", fmt.Errorf("the key file %s does not exist (brandbase keys generate --out %s makes one)", f.common.keysFile, f.common.keysFile)
		}
		if err != nil {
			return nil, "", fmt.Errorf("key file: %w", err)
		}
		k, err := integrations.ParseKeyRing(b)
		if err != nil {
			return nil, "", fmt.Errorf("key file %s: %w", f.common.keysFile, err)
		}
		return k, f.common.keysFile, nil
	}
	return nil, "", nil
}

// adminLogger is the logger of the commands other than serve: warnings and
// errors (a store's outage) on stderr.
func (c *cli) adminLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// openApp opens the database the flags name and returns the App on it, and
// the function that closes both. With needKeys the key ring is required
// (a command that reads or writes secrets) unless the store is in memory;
// without it, a command that never touches a secret runs without the ring.
func (f *flags) openApp(ctx context.Context, needKeys bool, logger *slog.Logger) (*brandbase.App, func(), error) {
	db, err := f.db()
	if err != nil {
		return nil, nil, err
	}
	keys, _, err := f.keyRing()
	if err != nil {
		return nil, nil, err
	}
	if keys == nil {
		if needKeys && db != storeurl.MemoryPath {
			return nil, nil, errNoKeyRing
		}
		// Never seals: the commands run without the ring read no secret.
		keys = integrations.EphemeralKeyRing()
	}
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

// findBrand returns the brand whose URL (in any form a Brand-URL header
// takes) or ID is ref, active or not.
func findBrand(ctx context.Context, app *brandbase.App, ref string) (auth.Brand, error) {
	if strings.TrimSpace(ref) == "" {
		return auth.Brand{}, usagef("no brand: give --brand URL")
	}
	brands, err := app.Auth.Brands(ctx)
	if err != nil {
		return auth.Brand{}, err
	}
	url, _ := auth.NormalizeBrandURL(ref)
	for _, b := range brands {
		if b.ID == ref || (url != "" && b.URL == url) {
			return b, nil
		}
	}
	return auth.Brand{}, fmt.Errorf("no brand has the URL or ID %q (brandbase brand list shows them)", ref)
}

// findUser returns the user of brand whose username or ID is ref.
func findUser(ctx context.Context, app *brandbase.App, brand auth.Brand, ref string) (auth.User, error) {
	u, err := app.Auth.UserByUsername(ctx, brand.ID, ref)
	if err == nil {
		return u, nil
	}
	if envelope.KindOf(err) != envelope.KindNotFound {
		return auth.User{}, err
	}
	if u, err := app.Auth.User(ctx, ref); err == nil && u.BrandID == brand.ID {
		return u, nil
	}
	return auth.User{}, fmt.Errorf("brand %s has no user with the username or ID %q (brandbase user list --brand %s shows them)", brand.URL, ref, brand.URL)
}

// describe returns the message of err for a person: the envelope's
// message and its field errors, else err's text.
func describe(err error) error {
	var e *envelope.Error
	if !errors.As(err, &e) {
		return err
	}
	msg := e.Message
	var fields []string
	for _, it := range e.Items() {
		if it.Field != "" {
			fields = append(fields, it.Field+": "+it.Details)
		} else if it.Details != "" && it.Details != msg {
			fields = append(fields, it.Details)
		}
	}
	if len(fields) > 0 {
		msg += " " + strings.Join(fields, "; ")
	}
	return errors.New(msg)
}
