package refdata_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/storage/sqlite"
)

// importStores are the stores the importer is tested on.
var importStores = map[string]func(t *testing.T) storage.Storage{
	"memory": func(t *testing.T) storage.Storage {
		s, err := memory.New(t.Context())
		require.NoError(t, err)
		return s
	},
	"sqlite": func(t *testing.T) storage.Storage {
		s, err := sqlite.Open(t.Context(), t.TempDir()+"/import.db")
		require.NoError(t, err)
		return s
	},
}

// citiesIn returns the cities of country cc in insertion order.
func citiesIn(t *testing.T, svc *refdata.Service, cc string) []refdata.City {
	t.Helper()
	p, err := svc.ListCities(t.Context(), refdata.CityQuery{CountryCode: &cc, Page: refdata.Paging{Size: refdata.MaxPageSize}})
	require.NoError(t, err)
	return p.Items
}

func TestImportCSV(t *testing.T) {
	t.Parallel()
	// Any column order, extra columns, header case and a byte-order mark.
	const file = "\ufeffPopulation,Name,TAGS,stateCode,countryCode,lat\n" +
		"12000000,São Paulo,\"metro, state-capital\",sp,br,-23.5\n" +
		"1,Santos,port,BR-SP,BR,-23.9\n" +
		"\n" +
		"5,,,SP,BR,0\n" + // line 5: no name
		"5,Nowhere,,,ZZ,0\n" + // line 6: unknown country
		"5,Somewhere,,TOOLONGSTATE,B1,0\n" + // line 7: two bad fields, one bad row
		"5,Campinas,,SP,BR,-22.9\n"
	for name, newStore := range importStores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			t.Cleanup(func() { s.Close() })
			svc := refdata.NewService(s)
			before := len(citiesIn(t, svc, "BR"))

			report, err := svc.ImportCities(t.Context(), strings.NewReader(file), refdata.ImportOptions{})
			require.NoError(t, err)
			assert.Equal(t, 6, report.Rows)
			assert.Equal(t, 3, report.Skipped)
			assert.Equal(t, []refdata.RowError{
				{Line: 5, Field: "name", Code: "required", Details: "name is required."},
				{Line: 6, Field: "countryCode", Code: "unknown_country", Details: "countryCode ZZ is not a known country."},
				{Line: 7, Field: "countryCode", Code: "invalid_format", Details: "countryCode must be an ISO 3166-1 alpha-2 code."},
				{Line: 7, Field: "stateCode", Code: "invalid_format", Details: "stateCode must be an ISO 3166-2 subdivision code of up to 6 letters and digits."},
			}, report.Errors)
			// São Paulo is in the default dataset: updated, not added; its
			// stored tags (state-capital,metro) already hold the imported ones.
			assert.Equal(t, 3, report.Added+report.Updated)

			got := citiesIn(t, svc, "BR")
			assert.Len(t, got, before+report.Added)
			assert.Contains(t, got, refdata.City{CountryCode: "BR", StateCode: "SP", Name: "São Paulo", Tags: "state-capital,metro"})
			// Santos is in the default dataset too (port,metro): the import adds no tag.
			assert.Contains(t, got, refdata.City{CountryCode: "BR", StateCode: "SP", Name: "Santos", Tags: "port,metro"}, "the country prefix is dropped")

			again, err := svc.ImportCities(t.Context(), strings.NewReader(file), refdata.ImportOptions{})
			require.NoError(t, err)
			assert.Zero(t, again.Added, "a second import adds nothing")
			assert.Equal(t, 3, again.Updated)
			assert.Equal(t, got, citiesIn(t, svc, "BR"))
		})
	}
}

func TestImportJSON(t *testing.T) {
	t.Parallel()
	const file = `
[
  {"countryCode": "PT", "stateCode": "11", "name": "Zetintra", "tags": ["historic", "unesco"], "population": 377835},
  {"countryCode": "PT", "stateCode": "13", "name": "Vila Zeta de Gaia"},
  42,
  {"countryCode": "PT", "name": {"pt": "Braga"}},
  {"countryCode": "PT", "stateCode": "13", "name": "VILA ZETA DE GAIA", "tags": "port"}
]`
	for name, newStore := range importStores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			t.Cleanup(func() { s.Close() })
			svc := refdata.NewService(s)
			var progress []refdata.ImportReport
			report, err := svc.ImportCities(t.Context(), strings.NewReader(file), refdata.ImportOptions{
				BatchSize: 2, Progress: func(r refdata.ImportReport) { progress = append(progress, r) }})
			require.NoError(t, err)
			assert.Equal(t, 5, report.Rows)
			assert.Equal(t, 2, report.Added)
			assert.Equal(t, 1, report.Updated, "the same city twice: the second replaces the first")
			assert.Equal(t, 2, report.Skipped)
			assert.Equal(t, []refdata.RowError{
				{Line: 5, Code: "invalid_type", Details: "Each element must be an object with countryCode, stateCode, name and tags."},
				{Line: 6, Field: "name", Code: "invalid_type", Details: "name must be a string."},
			}, report.Errors)
			require.Len(t, progress, 2, "one call per batch, and one at the end")
			assert.Equal(t, report, progress[len(progress)-1])

			got := citiesIn(t, svc, "PT")
			assert.Contains(t, got, refdata.City{CountryCode: "PT", StateCode: "11", Name: "Zetintra", Tags: "historic,unesco"})
			assert.Contains(t, got, refdata.City{CountryCode: "PT", StateCode: "13", Name: "VILA ZETA DE GAIA", Tags: "port"})
		})
	}
}

func TestImportFatalErrors(t *testing.T) {
	t.Parallel()
	s, err := memory.New(t.Context())
	require.NoError(t, err)
	svc := refdata.NewService(s)
	for name, sc := range map[string]struct {
		file    string
		details string
	}{
		"missing column": {"countryCode,name\nFR,Paris\n", `the header has no "stateCode" column`},
		"empty":          {"", "the file is empty"},
		"not an array":   {` {"countryCode": "FR"}`, "line 1: the input must be a JSON array of cities"},
		"broken JSON": {"[\n {\"countryCode\": \"FR\", \"stateCode\": \"75\", \"name\": \"Paris\"},\n {\"countryCode\": \"FR\",, }\n]",
			"line 3: invalid character ',' looking for beginning of object key string"},
		"unterminated": {"[\n{\"countryCode\": \"FR\", \"stateCode\": \"75\", \"name\": \"Paris\"}", "the JSON array is not closed"},
	} {
		report, err := svc.ImportCities(t.Context(), strings.NewReader(sc.file), refdata.ImportOptions{})
		require.Error(t, err, name)
		assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err), name)
		assert.Contains(t, envelope.As(err).Message, sc.details, name)
		assert.Equal(t, "The cities file cannot be read: "+sc.details+".", err.Error(), "%s: the cause is stated once", name)
		assert.Zero(t, report.Added, name)
	}
}

// failingReader fails every read with its error.
type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// An input that cannot be read is a KindInvalid error that names its cause
// once and keeps it in its chain.
func TestImportUnreadableInput(t *testing.T) {
	t.Parallel()
	s, err := memory.New(t.Context())
	require.NoError(t, err)
	errDisk := errors.New("disk on fire")
	_, err = refdata.NewService(s).ImportCities(t.Context(), failingReader{errDisk}, refdata.ImportOptions{})
	assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err))
	assert.ErrorIs(t, err, errDisk)
	assert.Equal(t, "The cities file cannot be read: header: disk on fire.", err.Error())
	assert.Equal(t, err.Error(), envelope.As(err).Message, "the client is told what the log says")
}

// A row whose stateCode is not on the embedded ISO 3166-2 list is stored
// as given, counted, and named among the first samples; an empty stateCode
// is not counted, nor is a bad row (which is skipped).
func TestImportUnknownStateCodes(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"csv": "countryCode,stateCode,name,tags\n" +
			"GT,GU,Zetapa,\n" + // line 2: Guatemala's letter code, replaced by 01 in 2021
			"GT,01,Zetanueva,\n" +
			"IN,OR,Zetapur,\n" + // line 4: replaced by OD in 2023
			"FR,20R,Zetaccio,\n" +
			"NO,31,Zetastad,\n" + // Norway's 2024 county, on the list by its note
			"EE,EE-78,Zetartu,\n" + // line 7: replaced by 79 in 2020, given with its prefix
			"US,,Zetaville,\n" +
			"IN,ZZ,,\n", // bad row: skipped, not counted
		"json": `[
{"countryCode": "GT", "stateCode": "GU", "name": "Zetapa"},
{"countryCode": "GT", "stateCode": "01", "name": "Zetanueva"},
{"countryCode": "IN", "stateCode": "OR", "name": "Zetapur"},
{"countryCode": "FR", "stateCode": "20R", "name": "Zetaccio"},
{"countryCode": "NO", "stateCode": "31", "name": "Zetastad"},
{"countryCode": "EE", "stateCode": "EE-78", "name": "Zetartu"},
{"countryCode": "US", "stateCode": "", "name": "Zetaville"},
{"countryCode": "IN", "stateCode": "ZZ", "name": ""}
]`,
	}
	for name, newStore := range importStores {
		for format, file := range files {
			t.Run(name+"/"+format, func(t *testing.T) {
				t.Parallel()
				s := newStore(t)
				t.Cleanup(func() { s.Close() })
				svc := refdata.NewService(s)
				report, err := svc.ImportCities(t.Context(), strings.NewReader(file), refdata.ImportOptions{BatchSize: 3})
				require.NoError(t, err)
				assert.Equal(t, 8, report.Rows)
				assert.Equal(t, 7, report.Added)
				assert.Equal(t, 1, report.Skipped)
				assert.Equal(t, 3, report.UnknownStateCodes)
				assert.Equal(t, []refdata.RowError{
					{Line: 2, Field: "stateCode", Code: "unknown_state_code", Details: "GT-GU is not an ISO 3166-2 code; the row is stored as given."},
					{Line: 4, Field: "stateCode", Code: "unknown_state_code", Details: "IN-OR is not an ISO 3166-2 code; the row is stored as given."},
					{Line: 7, Field: "stateCode", Code: "unknown_state_code", Details: "EE-78 is not an ISO 3166-2 code; the row is stored as given."},
				}, report.UnknownStateSamples)
				for _, c := range []refdata.City{
					{CountryCode: "GT", StateCode: "GU", Name: "Zetapa"},
					{CountryCode: "IN", StateCode: "OR", Name: "Zetapur"},
					{CountryCode: "EE", StateCode: "78", Name: "Zetartu"},
					{CountryCode: "GT", StateCode: "01", Name: "Zetanueva"},
				} {
					assert.Contains(t, citiesIn(t, svc, c.CountryCode), c, "stored as given")
				}
			})
		}
	}
}

// The report names at most MaxUnknownStateSamples rows with an unknown
// state code, and counts them all.
func TestImportUnknownStateSamplesBounded(t *testing.T) {
	t.Parallel()
	s, err := memory.New(t.Context())
	require.NoError(t, err)
	var file strings.Builder
	file.WriteString("countryCode,stateCode,name\n")
	const rows = refdata.MaxUnknownStateSamples + 5
	for i := range rows {
		fmt.Fprintf(&file, "FR,COR,Zeta %d\n", i)
	}
	report, err := refdata.NewService(s).ImportCitiesCSV(t.Context(), strings.NewReader(file.String()), refdata.ImportOptions{})
	require.NoError(t, err)
	assert.Equal(t, rows, report.Added)
	assert.Equal(t, rows, report.UnknownStateCodes)
	require.Len(t, report.UnknownStateSamples, refdata.MaxUnknownStateSamples)
	assert.Equal(t, refdata.MaxUnknownStateSamples+1, report.UnknownStateSamples[refdata.MaxUnknownStateSamples-1].Line)
}

func TestImportMalformedCSVRow(t *testing.T) {
	t.Parallel()
	s, err := memory.New(t.Context())
	require.NoError(t, err)
	svc := refdata.NewService(s)
	file := "countryCode,stateCode,name,tags\nFR,75,Pa\"ris,\nFR,69,Lyon,\n"
	report, err := svc.ImportCitiesCSV(t.Context(), strings.NewReader(file), refdata.ImportOptions{})
	require.NoError(t, err)
	require.Len(t, report.Errors, 1)
	assert.Equal(t, 2, report.Errors[0].Line)
	assert.Equal(t, "malformed_row", report.Errors[0].Code)
	assert.Equal(t, 1, report.Added)
}

func TestImportCancelled(t *testing.T) {
	t.Parallel()
	s, err := memory.New(t.Context())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = refdata.NewService(s).ImportCities(ctx, strings.NewReader("countryCode,stateCode,name,tags\nFR,75,Paris,\n"), refdata.ImportOptions{})
	assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(err))
}

// countingStore is a Store that keeps nothing of an import but counts it.
type countingStore struct {
	refdata.Store
	rows, calls, maxBatch int
}

func (c *countingStore) ReadRefData(context.Context) (refdata.RefData, error) {
	return refdata.RefData{}, nil
}

func (c *countingStore) RefDataRevision(context.Context) (uint64, error) { return 0, nil }

func (c *countingStore) RefDataGeneration(context.Context) (string, uint64, error) { return "", 0, nil }

func (c *countingStore) RefDataWritten() uint64 { return 0 }

func (c *countingStore) UpsertCities(_ context.Context, cs []refdata.City) (int, error) {
	c.rows += len(cs)
	c.calls++
	c.maxBatch = max(c.maxBatch, len(cs))
	return len(cs), nil
}

// generated is a CSV stream of n rows, made as it is read.
func generated(n int) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		_, _ = io.WriteString(pw, "name,countryCode,stateCode,tags,population\n")
		for i := range n {
			if _, err := fmt.Fprintf(pw, "City %d,FR,%d,tag%d,%d\n", i, i%100, i%7, i); err != nil {
				return
			}
		}
		pw.Close()
	}()
	return pr
}

// TestImportStreams imports 100,000 rows and checks that they reach the
// store in batches and that the heap does not grow with the input.
func TestImportStreams(t *testing.T) {
	t.Parallel()
	const rows = 100_000
	store := &countingStore{}
	var peak uint64
	var ms runtime.MemStats
	report, err := refdata.NewService(store).ImportCitiesCSV(t.Context(), generated(rows), refdata.ImportOptions{
		BatchSize: 500,
		Progress: func(r refdata.ImportReport) {
			if r.Rows%20_000 == 0 { // a few samples: ReadMemStats stops the world
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		},
	})
	require.NoError(t, err)
	assert.Equal(t, rows, report.Added)
	assert.Equal(t, rows, store.rows)
	assert.Equal(t, 500, store.maxBatch)
	assert.Equal(t, rows/500, store.calls)
	assert.Less(t, peak, uint64(64<<20), "the heap stays small: the input (~3 MB) is not held")
}

// TestImportDr5hn: dr5hn's cities files import as published (fixtures in
// testdata/dr5hn, see SOURCE.md): snake_case columns and keys, extra
// columns and fields ignored, no tags column. Kosovo (XK, not ISO 3166-1)
// is a reported bad row.
func TestImportDr5hn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file   string
		rows   int
		want   []refdata.City
		errors []refdata.RowError
	}{
		{file: "cities.csv", rows: 5, want: []refdata.City{
			{CountryCode: "AF", StateCode: "BDS", Name: "Ashkāsham"},
			{CountryCode: "US", StateCode: "NY", Name: "Zeta Falls"},
			{CountryCode: "FR", StateCode: "IDF", Name: "Saint-Zéphyrin, Centre"},
		}, errors: []refdata.RowError{{Line: 6, Field: "countryCode", Code: "unknown_country", Details: "countryCode XK is not a known country."}}},
		{file: "cities-17.csv", rows: 3, want: []refdata.City{
			{CountryCode: "AD", StateCode: "02", Name: "Zetcanillo"},
			{CountryCode: "AD", StateCode: "02", Name: "El Tarter Zeta"},
		}},
		{file: "cities.json", rows: 3, want: []refdata.City{
			{CountryCode: "AF", StateCode: "BDS", Name: "Ashkāsham"},
			{CountryCode: "AD", StateCode: "02", Name: "Zetcanillo"},
		}, errors: []refdata.RowError{{Line: 45, Field: "countryCode", Code: "unknown_country", Details: "countryCode XK is not a known country."}}},
	}
	for name, newStore := range importStores {
		for _, tt := range tests {
			t.Run(name+"/"+tt.file, func(t *testing.T) {
				t.Parallel()
				s := newStore(t)
				t.Cleanup(func() { s.Close() })
				svc := refdata.NewService(s)
				f, err := os.Open(filepath.Join("testdata", "dr5hn", tt.file))
				require.NoError(t, err)
				defer f.Close()
				report, err := svc.ImportCities(t.Context(), f, refdata.ImportOptions{})
				require.NoError(t, err)
				assert.Equal(t, tt.rows, report.Rows)
				assert.Equal(t, len(tt.errors), report.Skipped)
				assert.Equal(t, tt.errors, report.Errors)
				for _, c := range tt.want {
					assert.Contains(t, citiesIn(t, svc, c.CountryCode), c)
				}
			})
		}
	}
}

// The country code, state code and name columns may be spelled as public
// datasets spell them; tags is optional, extra columns are ignored.
func TestImportColumnSpellings(t *testing.T) {
	t.Parallel()
	want := refdata.City{CountryCode: "PT", StateCode: "11", Name: "Zetacova"}
	tests := map[string]string{
		"camelCase":           "countryCode,stateCode,name\nPT,11,Zetacova\n",
		"snake_case":          "name,state_code,country_code,population\nZetacova,11,PT,5\n",
		"PascalCase":          "Name,StateCode,CountryCode\nZetacova,11,PT\n",
		"upper snake, spaces": " NAME , STATE_CODE , COUNTRY_CODE \nZetacova,11,PT\n",
		"byte-order mark":     "\ufeffcountry_code,state_code,name,tags\nPT,11,Zetacova,\n",
		"state_name beside":   "id,name,state_id,state_code,state_name,country_code,country_name\n1,Zetacova,7,11,Lisboa,PT,Portugal\n",
		"JSON snake_case":     `[{"country_code":"PT","state_code":"11","name":"Zetacova","state_name":"Lisboa"}]`,
		"JSON PascalCase":     `[{"CountryCode":"PT","StateCode":"11","Name":"Zetacova"}]`,
		"JSON both spellings": `[{"countryCode":"PT","country_code":"ES","stateCode":"11","state_code":"M","name":"Zetacova"}]`,
	}
	for name, file := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := memory.New(t.Context())
			require.NoError(t, err)
			svc := refdata.NewService(s)
			report, err := svc.ImportCities(t.Context(), strings.NewReader(file), refdata.ImportOptions{})
			require.NoError(t, err)
			assert.Empty(t, report.Errors)
			assert.Equal(t, 1, report.Added)
			assert.Contains(t, citiesIn(t, svc, "PT"), want)
		})
	}
	s, err := memory.New(t.Context())
	require.NoError(t, err)
	_, err = refdata.NewService(s).ImportCities(t.Context(), strings.NewReader("country_code,state_name,name\nPT,Lisboa,Zetacova\n"), refdata.ImportOptions{})
	assert.EqualError(t, err, `The cities file cannot be read: the header has no "stateCode" column.`, "state_name is not the state code")
}
