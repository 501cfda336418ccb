package sqlite_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/sqlite"

	"github.com/brandbase/brandbase/internal/textfold"
)

// TestMigrationNumbersStoredCurrencies opens a database at the schema
// before the order of storage (0006) holding a currency of the host's and
// two of the dataset's, stored in the reverse of the dataset's order, and
// checks that createdDate then lists the dataset's first, in the
// dataset's order, then the host's, then those the load added.
func TestMigrationNumbersStoredCurrencies(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := t.TempDir() + "/old.db"
	old := oldDatabase(t, path, slices.Concat(oldMigrations, []string{"0005_integration_configs.sql", "0006_sessions.sql"}))
	defaults, err := refdata.DefaultCurrencies()
	require.NoError(t, err)
	host := refdata.Currency{ID: refdata.CurrencyID("XTZ"), Code: "XTZ", Name: "Host Zeta", NamePlural: "host zetas"}
	for _, c := range []refdata.Currency{host, defaults[1], defaults[0]} {
		_, err := old.ExecContext(ctx, `INSERT INTO currencies (id, code, name, name_plural, symbol, symbol_native,
			decimal_digits, rounding, is_coin, tags, keywords, name_fold, name_plural_fold, symbol_fold,
			symbol_native_fold, tags_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			c.ID, c.Code, c.Name, c.NamePlural, c.Symbol, c.SymbolNative, c.DecimalDigits, c.Rounding, c.IsCoin,
			c.Tags, c.Keywords, textfold.Fold(c.Name), textfold.Fold(c.NamePlural), textfold.Fold(c.Symbol),
			textfold.Fold(c.SymbolNative), textfold.TagKey(c.Tags))
		require.NoError(t, err)
	}
	require.NoError(t, old.Close())

	s, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	page, err := refdata.NewService(s).ListCurrencies(ctx, refdata.CurrencyQuery{SortDataField: refPtr("createdDate"), Page: refdata.Paging{Size: refdata.MaxPageSize}, DefaultCurrency: "USD"})
	got := page.Items
	require.NoError(t, err)
	codes := func(cs []refdata.Currency) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = c.Code
		}
		return out
	}
	assert.Equal(t, codes(slices.Concat(defaults[:2], []refdata.Currency{host}, defaults[2:])), codes(got))
}
