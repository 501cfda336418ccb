package refdata

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A malformed declaration is refused when it is read, naming the field.
func TestReadDeclsRefusesMalformed(t *testing.T) {
	t.Parallel()
	type filter struct {
		Name string
		Sort field
	}
	tests := []struct {
		name  string
		query reflect.Type
		want  string
	}{
		{"no tag", reflect.TypeFor[struct{ Name *string }](), "Name: no query tag"},
		{"unknown kind", reflect.TypeFor[struct {
			Name *string `query:"fuzzy"`
		}](), `unknown one: "fuzzy"`},
		{"text kind on a number", reflect.TypeFor[struct {
			Name *int32 `query:"substring"`
		}](), "a substring parameter must be *string"},
		{"exact on a string", reflect.TypeFor[struct {
			Name *string `query:"exact"`
		}](), "an exact parameter must be"},
		{"page that is no Paging", reflect.TypeFor[struct {
			Name int `query:"page"`
		}](), "must be a Paging"},
		{"no filter field", reflect.TypeFor[struct {
			Other *string `query:"code"`
		}](), "has no field for parameter Other"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := readDecls(tc.query, reflect.TypeFor[filter]())
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	ps, err := readDecls(reflect.TypeFor[struct {
		Name          *string `query:"substring"`
		SortDataField *string `query:"sort"`
	}](), reflect.TypeFor[filter]())
	require.NoError(t, err)
	assert.Equal(t, -1, ps.nothing, "no keywords: no Nothing field")
	assert.Equal(t, 1, ps.decls[1].out, "sort normalises into Sort")
}
