package main

import (
	"bytes"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/memory"
)

func TestRunPrintsTheWalkThrough(t *testing.T) {
	t.Parallel()
	// The coins of the dataset, counted without the filter.
	store, err := memory.New(t.Context())
	require.NoError(t, err)
	all, err := refdata.NewService(store).ListCurrencies(t.Context(), refdata.CurrencyQuery{Page: refdata.Paging{Size: refdata.MaxPageSize}})
	require.NoError(t, err)
	coins := map[string]bool{}
	for _, c := range all.Items {
		if c.IsCoin {
			coins[c.Code] = true
		}
	}
	require.NotEmpty(t, coins)

	for name, args := range map[string][]string{
		"memory": nil,
		"sqlite": {"-db", filepath.Join(t.TempDir(), "inprocess.db")},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			require.NoError(t, run(t.Context(), args, &out))
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			require.Len(t, lines, 13, out.String())
			assert.Equal(t, []string{
				"brand: shop.example.com (default currency EUR)",
				"analytics created by the system: G-12345, apiKey *************1234, Active",
				"payment gateway created by the system: Stripe, privateKey ***************5678, test mode true",
				"user: alice [integrations.analytics.write]",
				"login with a wrong password: unauthenticated (invalid_credentials)",
				"login: alice, authKey valid for 24h0m0s",
				"authenticated: alice, may write analytics: true, payment gateways: false",
			}, lines[:7])

			m := regexp.MustCompile(`^cryptocurrencies: (\d+), the first 5: (.+)$`).FindStringSubmatch(lines[7])
			require.NotNil(t, m, lines[7])
			assert.Equal(t, strconv.Itoa(len(coins)), m[1], "IsCoin=true counts the coins only")
			listed := strings.Fields(m[2])
			for _, code := range listed {
				assert.True(t, coins[code], "%s is a coin", code)
			}
			assert.True(t, slices.IsSorted(listed), "sorted by code: %v", listed)

			assert.Equal(t, []string{
				"a negative page: invalid, field PageNumber: out_of_range",
				"analytics updated by alice: G-67890, default true, apiKey kept: true, changed [isDefault trackingId]",
				"its revision names: user alice",
				"alice updating the payment gateway: forbidden (access_denied)",
				"payment gateway updated, changed [notes], its revision names: the system",
			}, lines[8:])
		})
	}
}

func TestRunRefusesBadFlags(t *testing.T) {
	t.Parallel()
	assert.Error(t, run(t.Context(), []string{"-nope"}, io.Discard))
}
