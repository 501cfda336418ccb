// Package refdatatest generates reference data for tests and benchmarks:
// deterministic, realistic-looking cities in any number.
package refdatatest

import (
	"math/rand/v2"
	"strings"
	"sync"
	"unicode"

	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/refdata"
)

// Countries are the country codes generated cities belong to.
var Countries = []string{
	"US", "BR", "FR", "DE", "ES", "IT", "PT", "MX", "AR", "CA", "GB", "IN", "CN", "JP", "RU", "PL",
	"NL", "BE", "SE", "NO", "TR", "EG", "NG", "ZA", "KE", "AU", "NZ", "CL", "CO", "PE", "VN", "TH",
}

var syllables = []string{
	"san", "são", "jo", "sé", "ber", "lin", "mün", "chen", "ka", "ra", "chi", "new", "york", "los", "an",
	"ge", "les", "port", "land", "vil", "le", "burg", "ton", "field", "spring", "lake", "ri", "o", "de",
	"ja", "nei", "ro", "mar", "sei", "lle", "ham", "ko", "ło", "dź", "zü", "rich", "göt", "borg", "ál",
	"va", "cór", "do", "ba", "ni", "ce", "ly", "on", "to", "ky", "pa", "ris", "ma", "drid", "ro", "ma",
}

// rare are generated syllables (onset, vowel, coda), each much rarer than
// one of the common syllables above, as in real place names.
var rare = func() []string {
	var out []string
	for _, on := range []string{"b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "kr", "l", "m", "n",
		"p", "pl", "qu", "r", "s", "sh", "st", "t", "tr", "v", "w", "z"} {
		for _, v := range []string{"a", "e", "i", "o", "u", "ã", "é", "ö", "y"} {
			for _, co := range []string{"", "n", "r", "s"} {
				out = append(out, on+v+co)
			}
		}
	}
	return out
}()

// tagSets are the tags of the one city in ten that has some.
var tagSets = []string{"port", "coastal", "port,coastal", "capital", "historic,unesco"}

// Cities returns n distinct normalised cities (distinct natural keys),
// always the same for the same n and seed: names of one to three words of
// two or three syllables (some accented; 30% of them from a few dozen
// common ones such as "san" or "burg", the rest from about a thousand),
// spread over the Countries with up to 40 states each, one in ten with
// tags.
func Cities(n int, seed uint64) []refdata.City {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]refdata.City, 0, n)
	seen := make(map[string]bool, n)
	var b strings.Builder
	for len(out) < n {
		b.Reset()
		words := 1 + r.IntN(3)
		if r.IntN(2) == 0 {
			words = 1
		}
		for w := range words {
			if w > 0 {
				b.WriteByte(' ')
			}
			for s := range 2 + r.IntN(2) {
				syl := syllables[r.IntN(len(syllables))]
				if r.IntN(10) < 7 {
					syl = rare[r.IntN(len(rare))]
				}
				if s == 0 {
					rs := []rune(syl)
					rs[0] = unicode.ToUpper(rs[0])
					syl = string(rs)
				}
				b.WriteString(syl)
			}
		}
		cc := Countries[r.IntN(len(Countries))]
		c := refdata.City{
			CountryCode: cc,
			StateCode:   stateCode(r.IntN(40)),
			Name:        b.String(),
		}
		if r.IntN(10) == 0 {
			c.Tags = tagSets[r.IntN(len(tagSets))]
		}
		if k := refrows.CityKey(c.CountryCode, c.StateCode, c.Name); !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

func stateCode(i int) string {
	if i < 26 {
		return string(rune('A'+i)) + string(rune('A'+(i*7)%26))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}

// LargeSize is the number of cities of Large.
const LargeSize = 150_000

// Large returns the 150,000 generated cities benchmarks run on, generated
// once per process. Callers must not modify the slice.
var Large = sync.OnceValue(func() []refdata.City { return Cities(LargeSize, 1) })
