package refrows

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMergeTags(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 195)
	tests := []struct {
		name, stored, added, want string
	}{
		{"no tags added keeps the stored", "capital, port", "", "capital, port"},
		{"blank tags added keep the stored", "capital", " , ", "capital"},
		{"nothing stored takes the added as given", "", "metro, port", "metro, port"},
		{"new tags after the stored", "capital,metro", "hub", "capital,metro,hub"},
		{"a tag held in any case or accent is not repeated", "Capital,são", "capital, SAO, hub", "Capital,são,hub"},
		{"a tag added twice once", "a", "b, b ,c", "a,b,c"},
		{"a tag that would pass 200 bytes is dropped, a shorter one kept", long, "toolong,xyz", long + ",xyz"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, MergeTags(tt.stored, tt.added), tt.name)
	}
}
