package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProgress: on a terminal the bar is redrawn in place from the bytes
// read and ends its line; elsewhere each batch is a plain line.
func TestProgress(t *testing.T) {
	t.Parallel()
	var tty bytes.Buffer
	p := &progress{w: &tty, tty: true, total: 100, label: "import cities x.csv"}
	_, err := io.Copy(io.Discard, io.LimitReader(p.reader(strings.NewReader(strings.Repeat("x", 100))), 50))
	require.NoError(t, err)
	p.update(10, 10, 0, 0)
	assert.Equal(t, "\rimport cities x.csv [###############...............]  50% 10 rows", tty.String())
	p.finish(20)
	assert.True(t, strings.HasSuffix(tty.String(), "\rimport cities x.csv [##############################] 100% 20 rows\n"), tty.String())

	var plain bytes.Buffer
	p = newProgress(&plain, "import cities x.csv", 100)
	assert.False(t, p.tty, "a buffer is not a terminal")
	p.update(10, 8, 1, 1)
	p.finish(10)
	assert.Equal(t, "import cities x.csv: 10 rows, 8 added, 1 updated, 1 skipped\n", plain.String())
}
