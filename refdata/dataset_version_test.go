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
// new version's digest here. data/subdivisions.csv is not loaded into
// stores (the states list is answered from the binary), so it is not part
// of the digest: regenerating it needs no new version.
var datasetDigests = map[string]string{
	"2026.11.1": "d234b805b4bfb6f34a0e82961811614bf8f49cfbad884d51e16450ade95f9a90",
	"2026.11.2": "0d7b15ab3f1f02c820c613c761d1fec67be9557c473a88e0a95cc51dd9924ec2", // without subdivisions.csv (was fbf8f21c… with it)
}

func TestDatasetVersionPinsTheData(t *testing.T) {
	t.Parallel()
	names, err := fs.Glob(data, "data/*.csv")
	require.NoError(t, err)
	cities, err := fs.Glob(data, "data/cities/*.csv")
	require.NoError(t, err)
	names = append(names, cities...)
	names = slices.DeleteFunc(names, func(n string) bool { return n == "data/subdivisions.csv" })
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
