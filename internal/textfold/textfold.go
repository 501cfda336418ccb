// Package textfold is the one way brandbase compares names, tags and
// keywords: folded (lower-case, without accents) and split into words.
// The reference-data service, its index and the stores that search in SQL
// all use it, so that a filter matches the same records everywhere. It is
// internal: store authors outside this module compare through
// refdata.Service and its filters.
package textfold

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Fold returns s lower-cased and without accents: the one form in which
// names, tags and keywords are compared, so that "São Paulo", "SAO PAULO"
// and "sao paulo" are equal. It decomposes s (Unicode NFD), drops the
// non-spacing marks, lower-cases what remains and spells out the letters
// that do not decompose (ß → ss, æ → ae, ø → o, ł → l, đ → d, þ → th, ...).
// Invalid UTF-8 bytes become U+FFFD. Fold is idempotent; ASCII input is
// handled without decomposition.
func Fold(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			break
		}
		i++
	}
	if i == len(s) {
		return s // already folded ASCII
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	rest := s[i:]
	if !isASCII(rest) {
		rest = norm.NFD.String(strings.ToValidUTF8(rest, "\uFFFD"))
	}
	for _, r := range rest {
		foldRune(&b, r)
	}
	return b.String()
}

// foldRune writes the folded form of r, a rune of NFD text, to b.
func foldRune(b *strings.Builder, r rune) {
	switch {
	case r < utf8.RuneSelf:
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		b.WriteByte(byte(r))
	case unicode.Is(unicode.Mn, r):
		// accents and other non-spacing marks are dropped
	default:
		r = unicode.ToLower(r)
		if s, ok := foldSpecial[r]; ok {
			b.WriteString(s)
			return
		}
		b.WriteRune(r)
	}
}

// foldSpecial spells out lower-case letters that carry a stroke or are
// ligatures, which have no canonical decomposition.
var foldSpecial = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ð': "d", 'ł': "l",
	'þ': "th", 'ı': "i", 'ħ': "h", 'ŧ': "t", 'ŋ': "n", 'ĸ': "k", 'ƒ': "f",
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isWordRune reports whether r belongs to a word: letters, decimal digits
// and combining marks. Everything else (spaces, punctuation, symbols)
// separates words.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// nextWord returns the first word of s at or after byte i and the index
// just past it; start == len(s) when there is none. The word is not folded.
func nextWord(s string, i int) (word string, next int) {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if isWordRune(r) {
			break
		}
		i += n
	}
	j := i
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if !isWordRune(r) {
			break
		}
		j += n
	}
	return s[i:j], j
}

// appendWords appends the folded words of text to dst, skipping words that
// fold to nothing.
func appendWords(dst []string, text string) []string {
	for i := 0; i < len(text); {
		w, next := nextWord(text, i)
		i = next
		if w = Fold(w); w != "" {
			dst = append(dst, w)
		}
	}
	return dst
}

// Words returns the folded words of text: the units the Keywords filter
// matches. A word is a run of letters, digits and combining marks.
func Words(text string) []string { return appendWords(nil, text) }

// SearchText returns the folded words of fields joined by single spaces: the
// text a full-text index stores for the Keywords filter. Every word of it is
// a word of Words applied to one of the fields, and no other.
func SearchText(fields ...string) string {
	var b strings.Builder
	for _, f := range fields {
		for i := 0; i < len(f); {
			w, next := nextWord(f, i)
			i = next
			if w = Fold(w); w != "" {
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(w)
			}
		}
	}
	return b.String()
}

// hasWordPrefix reports whether a word of text, folded, starts with term (a
// folded word). ASCII words are compared without allocating.
func hasWordPrefix(text, term string) bool {
	for i := 0; i < len(text); {
		w, next := nextWord(text, i)
		i = next
		if w == "" {
			continue
		}
		if isASCII(w) {
			if asciiHasPrefixFold(w, term) {
				return true
			}
		} else if strings.HasPrefix(Fold(w), term) {
			return true
		}
	}
	return false
}

// asciiHasPrefixFold reports whether the lower-cased ASCII word w starts with
// term.
func asciiHasPrefixFold(w, term string) bool {
	if len(w) < len(term) {
		return false
	}
	for i := 0; i < len(term); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != term[i] {
			return false
		}
	}
	return true
}

// MatchTerms reports whether every term (a folded word, as in
// the Keywords of a city query) is the prefix of a folded word of one of fields. No
// terms match everything.
func MatchTerms(terms []string, fields ...string) bool {
next:
	for _, t := range terms {
		for _, f := range fields {
			if hasWordPrefix(f, t) {
				continue next
			}
		}
		return false
	}
	return true
}

// TagKey returns the normalised form of a comma-separated tag list: each tag
// trimmed and folded, empty tags dropped, joined and enclosed by commas
// (",eu,g7,"), or "" when there is no tag. A tag t is in the list when
// TagKey contains ","+t+",". Tags sort by their TagKey.
func TagKey(tags string) string {
	if strings.TrimSpace(tags) == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(tags) + 2)
	for t := range strings.SplitSeq(tags, ",") {
		if t = Fold(strings.TrimSpace(t)); t != "" {
			if b.Len() == 0 {
				b.WriteByte(',')
			}
			b.WriteString(t)
			b.WriteByte(',')
		}
	}
	return b.String()
}

// MatchTags reports whether tagKey (a TagKey) holds any of tags (folded
// tags, as in the Tags of a country query). No tags match everything.
func MatchTags(tags []string, tagKey string) bool {
	if len(tags) == 0 {
		return true
	}
	list := strings.Trim(tagKey, ",")
	for _, t := range tags {
		for have := range strings.SplitSeq(list, ",") {
			if have == t {
				return true
			}
		}
	}
	return false
}
