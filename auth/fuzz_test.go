package auth_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/brandbase/brandbase/auth"
)

// FuzzNormalizeBrandURL checks the properties of Brand-URL normalisation on
// any input: it never panics; a refused value yields ""; an accepted value
// is a fixed point (normalising it again gives itself), lower-case, holds no
// scheme, user info, path, query, fragment or space, and is found again
// behind a scheme, a path and surrounding space. The seed corpus is in
// testdata/fuzz/FuzzNormalizeBrandURL; fuzz beyond it with
//
//	go test -run '^$' -fuzz FuzzNormalizeBrandURL -fuzztime 60s ./auth
func FuzzNormalizeBrandURL(f *testing.F) {
	for _, s := range []string{
		"shop.example.com", "https://Shop.Example.com./cart?x=1#top", "//shop.example.com/path",
		"https://user:pw@shop.example.com", "Shop.Example.com:8443", "[::1]:8080", "", "   ",
		"https://", "exa mple.com", "shop.example.com:abc", "shop.example.com'--", "bad\x00host",
		"shop.example.com..", "ex\u00a0.", "xn--bcher-kva.example", "Bücher.Example", "\xff\xfe",
		"a:b:c", "h:", ":80", "%2e%2e/", "' OR 1=1 --",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, ok := auth.NormalizeBrandURL(raw)
		if !ok {
			if got != "" {
				t.Fatalf("NormalizeBrandURL(%q) refused the value but returned %q", raw, got)
			}
			return
		}
		if got == "" {
			t.Fatalf("NormalizeBrandURL(%q) accepted an empty result", raw)
		}
		if again, ok2 := auth.NormalizeBrandURL(got); !ok2 || again != got {
			t.Fatalf("not idempotent: %q -> %q -> (%q, %v)", raw, got, again, ok2)
		}
		if utf8.ValidString(got) && strings.ToLower(got) != got {
			t.Fatalf("NormalizeBrandURL(%q) = %q is not lower-case", raw, got)
		}
		if strings.Contains(got, "://") || strings.ContainsAny(got, "/?#@ \t\r\n\x00") {
			t.Fatalf("NormalizeBrandURL(%q) = %q kept a scheme, user info, path or space", raw, got)
		}
		if strings.TrimSpace(got) != got {
			t.Fatalf("NormalizeBrandURL(%q) = %q has surrounding space", raw, got)
		}
		if wrapped, ok3 := auth.NormalizeBrandURL("  https://" + got + "/cart?x=1#top  "); !ok3 || wrapped != got {
			t.Fatalf("behind a scheme and a path %q became (%q, %v)", got, wrapped, ok3)
		}
	})
}
