package postgres

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFirstKeyword: a statement's span is named after its first keyword,
// upper-cased, after space and comments.
func TestFirstKeyword(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ sql, want string }{
		{"SELECT 1", "SELECT"},
		{"  \n\tinsert INTO t VALUES ($1)", "INSERT"},
		{"-- a comment\nWITH x AS (SELECT 1) SELECT * FROM x", "WITH"},
		{"/* hint */ update t SET a = $1", "UPDATE"},
		{"SELECT pg_notify($1, $2)", "SELECT"},
		{";", "_OTHER"},
		{"", "_OTHER"},
	} {
		assert.Equal(t, tc.want, firstKeyword(tc.sql), "%q", tc.sql)
	}
}
