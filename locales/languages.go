package locales

import (
	"strings"
	"sync"

	"github.com/google/uuid"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// iso6391 are the ISO 639-1 codes in force (183; "sh", withdrawn in 2000,
// left out), from the ISO 639-2 Registration Authority's code list (Library
// of Congress).
const iso6391 = "aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy " +
	"da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz " +
	"ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo " +
	"lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps " +
	"pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn " +
	"to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu"

// Language is one ISO 639-1 language, as GET /api/v1/languages answers it
// (the names of the spec's origin's client, jfw-js's ILanguage). A field
// no source gives is nil, never made up.
type Language struct {
	// ID is stable across installs (see [Namespace]).
	ID string `json:"id"`
	// Code is the ISO 639-1 code ("vi").
	Code string `json:"code"`
	// Name is the English name (CLDR, through golang.org/x/text), or nil
	// where CLDR has none.
	Name *string `json:"name"`
	// NativeName is the name in the language itself (CLDR), or nil where
	// CLDR has none.
	NativeName *string `json:"nativeName"`
	// CountryCode is the ISO 3166-1 alpha-2 code of the country CLDR's
	// likely-subtags data names for the language ("vi" → VN), or nil where
	// that is no country (Esperanto's is the world) or not known.
	CountryCode *string `json:"countryCode"`
	// DateFormat is the language's date pattern: nil, since no source this
	// library embeds gives it (golang.org/x/text has no date patterns).
	DateFormat *string `json:"dateFormat"`
}

// languages builds the list once.
var languages = sync.OnceValue(func() []Language {
	codes := strings.Fields(iso6391)
	out := make([]Language, 0, len(codes))
	en := display.English.Languages()
	for _, code := range codes {
		tag := language.Make(code)
		l := Language{ID: uuid.NewSHA1(Namespace, []byte("language:"+code)).String(), Code: code}
		if n := en.Name(tag); n != "" {
			l.Name = &n
		}
		if n := display.Self.Name(tag); n != "" {
			l.NativeName = &n
		}
		if r, conf := tag.Region(); conf != language.No && r.IsCountry() {
			cc := r.String()
			l.CountryCode = &cc
		}
		out = append(out, l)
	}
	return out
})

// Languages returns the ISO 639-1 languages, by code. The caller must not
// modify the records.
func Languages() []Language {
	return languages()
}
