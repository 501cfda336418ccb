package postgres_test

import (
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/postgres"

	"github.com/brandbase/brandbase/internal/textfold"
)

// TestMigrationNumbersStoredCurrencies makes a schema as it was before the
// order of storage (migration 7) holding a currency of the host's and two
// of the dataset's, stored in the reverse of the dataset's order, and
// checks that createdDate then lists the dataset's first, in the
// dataset's order, then the host's, then those the load added.
func TestMigrationNumbersStoredCurrencies(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	require.NoError(t, postgres.MigrateTo(ctx, conn, 6))
	defaults, err := refdata.DefaultCurrencies()
	require.NoError(t, err)
	host := refdata.Currency{ID: refdata.CurrencyID("XTZ"), Code: "XTZ", Name: "Host Zeta", NamePlural: "host zetas"}
	for _, c := range []refdata.Currency{host, defaults[1], defaults[0]} {
		_, err := conn.Exec(ctx, `INSERT INTO currencies (id, code, name, name_plural, symbol, symbol_native,
			decimal_digits, rounding, is_coin, tags, keywords, name_fold, name_plural_fold, symbol_fold,
			symbol_native_fold, tags_key, prefixes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, '{}')`,
			c.ID, c.Code, c.Name, c.NamePlural, c.Symbol, c.SymbolNative, c.DecimalDigits, c.Rounding, c.IsCoin,
			c.Tags, c.Keywords, textfold.Fold(c.Name), textfold.Fold(c.NamePlural), textfold.Fold(c.Symbol),
			textfold.Fold(c.SymbolNative), textfold.TagKey(c.Tags))
		require.NoError(t, err)
	}

	s := open(t, url)
	byCreation := "createdDate"
	page, err := refdata.NewService(s).ListCurrencies(ctx, refdata.CurrencyQuery{SortDataField: &byCreation, Page: refdata.Paging{Size: refdata.MaxPageSize}, DefaultCurrency: "USD"})
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
