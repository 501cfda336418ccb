package postgres

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNameGrams checks the grams of a folded name and the pairs of a
// needle.
func TestNameGrams(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"a", "b", "ab", "ba"}, nameGrams("abab"))
	assert.Equal(t, []string{"東", "京", "東京"}, nameGrams("東京"))
	assert.Equal(t, []string{"z", "u", "zu", " ", "u ", "o", " o"}, nameGrams("zu o"))
	assert.Empty(t, nameGrams(""))
	assert.Equal(t, []string{"a-", "-b"}, runePairs("a-b"))
}

// TestWordPrefixes checks the prefixes the Keywords filter looks up.
func TestWordPrefixes(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"s", "sa", "sao", "p", "pa", "pau"}, wordPrefixes("sao pau"))
	assert.Equal(t, []string{"த", "தம", "தமி", "தமிழ", "தமிழ்"}, wordPrefixes("தமிழ்"), "rune by rune, marks included")
	assert.Equal(t, []string{"a", "ab"}, wordPrefixes("ab a"), "distinct")
	assert.Empty(t, wordPrefixes(""))
}

// TestFilterHelpers checks the patterns, the trigram test, the bulk-load
// rule and the values PostgreSQL text cannot hold.
func TestFilterHelpers(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `%a\%b\_c\\d%`, likePattern(`a%b_c\d`))
	for needle, want := range map[string]bool{"burg": true, "a-b": false, "o z": false, "東京都": true, "ab1": true, "'-'": false} {
		assert.Equal(t, want, trigrams(needle), needle)
	}
	assert.True(t, bulkLoad(5000, 0))
	assert.True(t, bulkLoad(5000, 50_000))
	assert.False(t, bulkLoad(5000, 50_001))
	assert.False(t, bulkLoad(999, 0))
	assert.True(t, storable("São"))
	assert.False(t, storable("a\x00b"))
	assert.False(t, storable("ok", "\xff"))
	assert.Equal(t, "brandbase_x", channelName("x"))
	assert.Len(t, channelName(string(make([]byte, 100))), 63)
}
