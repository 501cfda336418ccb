package storagetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
)

func contextCancelled(t *testing.T) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	return ctx, cancel
}

func runRefData(t *testing.T, newStore NewStore) {
	t.Run("DefaultDatasetLoaded", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		v, err := s.DatasetVersion(ctx)
		require.NoError(t, err)
		assert.Equal(t, refdata.DatasetVersion, v)

		want, err := refdata.DefaultCurrencies()
		require.NoError(t, err)
		got, total, err := s.ListCurrencies(ctx, refdata.CurrencyQuery{Page: refdata.Paging{Size: refdata.MaxPageSize}})
		require.NoError(t, err)
		assert.Equal(t, len(want), total)
		assert.ElementsMatch(t, want, got)
	})

	t.Run("CurrencyPaging", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		all, total, err := s.ListCurrencies(ctx, refdata.CurrencyQuery{Page: refdata.Paging{Size: refdata.MaxPageSize}})
		require.NoError(t, err)
		require.Greater(t, total, 3)
		for i := 1; i < len(all); i++ {
			assert.Less(t, all[i-1].ID, all[i].ID, "ordered by ID")
		}
		var paged []refdata.Currency
		for n := 0; ; n++ {
			page, pt, err := s.ListCurrencies(ctx, refdata.CurrencyQuery{Page: refdata.Paging{Number: n, Size: 2}})
			require.NoError(t, err)
			assert.Equal(t, total, pt, "total is of the whole query")
			if len(page) == 0 {
				break
			}
			assert.LessOrEqual(t, len(page), 2)
			paged = append(paged, page...)
		}
		assert.Equal(t, all, paged, "pages neither overlap nor skip")
	})

	t.Run("UpsertCurrencies", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, before, err := s.ListCurrencies(ctx, refdata.CurrencyQuery{Page: refdata.Paging{Size: 1}})
		require.NoError(t, err)
		c := refdata.Currency{ID: refdata.CurrencyID("XTS"), Code: "XTS", Name: "Test", NamePlural: "tests",
			Symbol: "T", SymbolNative: "T", DecimalDigits: 2, Rounding: 0.5, Tags: "test", Keywords: "testing"}
		require.NoError(t, s.UpsertCurrencies(ctx, []refdata.Currency{c}))
		c.Name = "Test Renamed"
		require.NoError(t, s.UpsertCurrencies(ctx, []refdata.Currency{c}), "upsert is idempotent")
		all, after, err := s.ListCurrencies(ctx, refdata.CurrencyQuery{Page: refdata.Paging{Size: refdata.MaxPageSize}})
		require.NoError(t, err)
		assert.Equal(t, before+1, after)
		assert.Contains(t, all, c)
	})

	t.Run("CancelledContext", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx, cancel := contextCancelled(t)
		defer cancel()
		_, _, err := s.ListCurrencies(ctx, refdata.CurrencyQuery{Page: refdata.Paging{Size: 10}})
		assert.Error(t, err)
	})
}
