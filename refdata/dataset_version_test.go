package refdata

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// datasetDigests pins the embedded data files to the DatasetVersion they
// were released as. Stores skip loading when they hold the current
// DatasetVersion, so data edited without a new version would never reach an
// existing database: when this test fails, bump DatasetVersion and add the
// new version's digest here.
var datasetDigests = map[string]string{
	"2026.11.1": "d234b805b4bfb6f34a0e82961811614bf8f49cfbad884d51e16450ade95f9a90",
	"2026.11.2": "fbf8f21ce2cd847139a0f703ec651bb06861aea02f0eaaf4fd8f1d37c8987909",
}

func TestDatasetVersionPinsTheData(t *testing.T) {
	t.Parallel()
	names, err := fs.Glob(data, "data/*.csv")
	require.NoError(t, err)
	cities, err := fs.Glob(data, "data/cities/*.csv")
	require.NoError(t, err)
	names = append(names, cities...)
	slices.Sort(names)
	h := sha256.New()
	for _, name := range names {
		b, err := fs.ReadFile(data, name)
		require.NoError(t, err)
		h.Write([]byte(name))
		h.Write(b)
	}
	got := hex.EncodeToString(h.Sum(nil))
	assert.Equal(t, datasetDigests[DatasetVersion], got,
		"the embedded data changed: bump refdata.DatasetVersion and record the new digest in datasetDigests")
}
