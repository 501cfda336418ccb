package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestImportCitiesFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "cities.csv")
	require.NoError(t, os.WriteFile(file, []byte("name,countryCode,stateCode,tags\n"+
		"Zétaville,FR,IDF,\nBad,ZZ,,\n"), 0o600))
	base, stdout, stop := startServer(t, "-db", ":memory:", "-import-cities", file)
	defer stop()
	demo := demoLine(t, stdout.String())

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
