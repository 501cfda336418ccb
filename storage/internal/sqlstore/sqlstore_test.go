package sqlstore

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/refdata"
)

// record is an Equals that writes down every call.
type record []string

func (r *record) Equal(col string, v any) { *r = append(*r, "equal "+col) }

func TestConditions(t *testing.T) {
	t.Parallel()
	yes := true
	typ := integrations.Type("t")
	tests := []struct {
		name string
		add  func(*record)
		want []string
	}{
		{"apps of every brand", func(r *record) { AppIntegrationConditions(r, integrations.AppIntegrationFilter{}) }, nil},
		{"apps", func(r *record) {
			AppIntegrationConditions(r, integrations.AppIntegrationFilter{BrandID: "b", Type: &typ})
		}, []string{"equal brand_id", "equal type"}},
		{"configs", func(r *record) {
			ConfigConditions(r, integrations.ConfigFilter{Kind: "k", IsDefault: &yes})
		}, []string{"equal kind", "equal is_default"}},
		{"revisions", func(r *record) { RevisionConditions(r, integrations.RevisionFilter{RecordID: "x"}) },
			[]string{"equal brand_id", "equal record_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var r record
			tt.add(&r)
			assert.Equal(t, tt.want, []string(r))
		})
	}
}

func TestColumns(t *testing.T) {
	t.Parallel()
	require.Len(t, CurrencyRow(refdata.Currency{}), len(CurrencyColumns))
	require.Len(t, CountryRow(refdata.Country{}), len(CountryColumns))
	c := refdata.Currency{ID: "i", Code: "c", Name: "n", NamePlural: "p", Symbol: "s", SymbolNative: "sn",
		DecimalDigits: 2, Rounding: 0.5, IsCoin: true, Tags: "t", Keywords: "k"}
	got, err := ScanCurrency(rowOf(CurrencyRow(c)))
	require.NoError(t, err)
	assert.Equal(t, c, got, "ScanCurrency reads what CurrencyRow writes")
	k := refdata.Country{ID: "i", Region: "r", Subregion: "s", CodeAlpha2: "XA", CodeAlpha3: "XAA", CodeNumeric: 9,
		CodePhone: "+9", Name: "n", Capital: "c", Currency: "XTA", Tld: ".xa", Native: "na", Tags: "t", Keywords: "k"}
	gotCountry, err := ScanCountry(rowOf(CountryRow(k)))
	require.NoError(t, err)
	assert.Equal(t, k, gotCountry, "ScanCountry reads what CountryRow writes")
}

// rowOf is a Scanner of vals, each copied into its destination.
type rowOf []any

func (r rowOf) Scan(dest ...any) error {
	for i, d := range dest {
		reflect.ValueOf(d).Elem().Set(reflect.ValueOf(r[i]))
	}
	return nil
}

func TestRebind(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`SELECT '?', "a?" FROM t WHERE b = ?`, `SELECT '?', "a?" FROM t WHERE b = $1`},
		{`INSERT INTO t VALUES (` + placeholders(11) + `)`, `INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Rebind(tt.in), tt.in)
	}
}

func TestRenumber(t *testing.T) {
	t.Parallel()
	all := []Migration{{Version: 4, Name: "0004_integrations.sql"}, {Version: 5, Name: "0005_integration_configs.sql"},
		{Version: 6, Name: "0006_sessions.sql"}, {Version: 7, Name: "0007_created_order.sql"}}
	tests := []struct {
		name    string
		applied map[int]string
		want    map[int]Migration
	}{
		{"numbered alike", map[int]string{4: "0004_integrations.sql", 5: "0005_integration_configs.sql", 6: "0006_sessions.sql"}, nil},
		{"old numbers", map[int]string{4: "0004_integrations.sql", 5: "0005_sessions.sql", 6: "0006_created_order.sql"},
			map[int]Migration{5: all[2], 6: all[3]}},
		{"a newer instance's migration stays", map[int]string{4: "0004_integrations.sql", 9: "0009_later.sql"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Renumber(tt.applied, all))
		})
	}
}
