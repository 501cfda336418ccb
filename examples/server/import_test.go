package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestImportCitiesFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "cities.csv")
	require.NoError(t, os.WriteFile(file, []byte("name,countryCode,stateCode,tags\n"+
		"Zétaville,FR,IDF,\nBad,ZZ,,\nZetapa,GT,GU,\n"), 0o600))
	s := launch("-db", ":memory:", "-import-cities", file)
	base, stop := s.wait(t)
	defer stop()
	demo := demoLine(t, s.stdout.String())
	assert.Equal(t, "import-cities: cities.csv: 3 rows, 2 added, 0 updated, 1 skipped, 1 with a state code not in ISO 3166-2\n"+
		"import-cities: cities.csv: skipped line 3: countryCode: countryCode ZZ is not a known country.\n"+
		"import-cities: cities.csv: line 4: stateCode: GT-GU is not an ISO 3166-2 code; the row is stored as given.\n",
		importLines(s.stderr.String()), "the progress line counts the unknown state codes, and the first are named")

	req, err := http.NewRequest("GET", base+"/api/v1/cities?Keywords=zetav", nil)
	require.NoError(t, err)
	req.Header.Set("Brand-URL", demo.BrandURL)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var body struct {
		Data struct {
			Items []struct {
				Name        string `json:"name"`
				CountryCode string `json:"countryCode"`
			} `json:"items"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Len(t, body.Data.Items, 1)
	assert.Equal(t, "Zétaville", body.Data.Items[0].Name)
}

func TestImportCitiesFlagBadFile(t *testing.T) {
	t.Parallel()
	err := run(t.Context(), []string{"-db", ":memory:", "-addr", "127.0.0.1:0", "-import-cities", filepath.Join(t.TempDir(), "missing.csv")},
		&syncBuffer{}, &syncBuffer{}, nil)
	assert.ErrorContains(t, err, "import cities")
}

// importLines returns the lines of out written by the import.
func importLines(out string) string {
	var b strings.Builder
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "import-cities: ") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// An unreadable file fails the start with one sentence naming the cause
// once.
func TestImportCitiesFlagUnreadableFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "cities.csv")
	require.NoError(t, os.WriteFile(file, []byte("countryCode,stateCode\nFR,IDF\n"), 0o600))
	err := run(t.Context(), []string{"-db", ":memory:", "-addr", "127.0.0.1:0", "-import-cities", file},
		&syncBuffer{}, &syncBuffer{}, nil)
	assert.EqualError(t, err, "import cities from "+file+`: The cities file cannot be read: the header has no "name" column.`)
}
