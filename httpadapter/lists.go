package httpadapter

import (
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/locales"
	"github.com/brandbase/brandbase/refdata"
)

// cacheClientList is the Cache-Control of the states, time zones and
// languages: they change only with a new release (the time zones' offsets
// with daylight saving time, which their ETag follows), and the ETag
// revalidates cheaply.
const cacheClientList = "public, max-age=300"

// stateParams are the query parameters of GET /api/v1/states.
var stateParams = []refdata.Param{
	{Name: "countryCode", Type: reflect.TypeFor[string](), Kind: refdata.ParamCode,
		Doc: "ISO 3166-1 alpha-2, any case: that country's states only (none for a code no country has)."},
}

// encodedLists holds the encoded answers of the lists that never change
// while the process runs: the languages, and the states of each country
// (of every country under "").
type encodedLists struct {
	languages func() (cachedAnswer, error)
	states    sync.Map // countryCode (upper case) → cachedAnswer
}

var clientLists = encodedLists{
	languages: sync.OnceValues(func() (cachedAnswer, error) { return encodeList(locales.Languages()) }),
}

// encodeList encodes data as a successful envelope with its strong ETag.
func encodeList(data any) (cachedAnswer, error) {
	body, err := envelope.Marshal(envelope.Success(http.StatusOK, "", data))
	if err != nil {
		return cachedAnswer{}, err
	}
	return cachedAnswer{body: body, etag: bodyETag(body)}, nil
}

// listStates answers GET /api/v1/states: every ISO 3166-2 subdivision, or
// those of ?countryCode=, as a bare array (jfw-js reads IState[]).
func (h *Handler) listStates(w http.ResponseWriter, r *http.Request) {
	cc, _ := newQuery(r).get("countryCode")
	states, err := refdata.States(cc)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if len(states) == 0 { // a code no country has: answered, not kept
		e, err := encodeList(states)
		h.answerEncoded(w, r, e, err, cacheClientList)
		return
	}
	key := "" // every country's
	if strings.TrimSpace(cc) != "" {
		key = states[0].CountryCode // one per country: the cache is bounded
	}
	if e, ok := clientLists.states.Load(key); ok {
		h.answerEncoded(w, r, e.(cachedAnswer), nil, cacheClientList)
		return
	}
	e, err := encodeList(states)
	if err == nil {
		clientLists.states.Store(key, e)
	}
	h.answerEncoded(w, r, e, err, cacheClientList)
}

// answerEncoded answers r with e (or err), under cacheControl.
func (h *Handler) answerEncoded(w http.ResponseWriter, r *http.Request, e cachedAnswer, err error, cacheControl string) {
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okEncoded(w, r, e.body, e.etag, cacheControl)
}

// listTimezones answers GET /api/v1/timezones: the IANA zones with their
// UTC offsets now (the adapter's clock), as a bare array (jfw-js reads
// ITimezone[]). The ETag is that of the encoded answer, so it changes
// when an offset does.
func (h *Handler) listTimezones(w http.ResponseWriter, r *http.Request) {
	zones, err := locales.Timezones(h.rl.now())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	e, err := encodeList(zones)
	h.answerEncoded(w, r, e, err, cacheClientList)
}

// listLanguages answers GET /api/v1/languages: the ISO 639-1 languages, as
// a bare array (jfw-js reads ILanguage[]).
func (h *Handler) listLanguages(w http.ResponseWriter, r *http.Request) {
	e, err := clientLists.languages()
	h.answerEncoded(w, r, e, err, cacheClientList)
}

// clientListRoutes are the lists the spec's origin's client asks for
// beside the spec's three (docs/http-api.md, "States, time zones,
// languages"): Brand-URL only, bare arrays, strong ETags.
var clientListRoutes = []route{
	{
		pattern: "GET /api/v1/states", id: "listStates", tag: tagRefData,
		summary: "List states",
		description: "Every ISO 3166-2 subdivision of every level (CLDR's list and English names), by country and code, as a bare array; " +
			"code is without the country prefix, as a city's stateCode is, so cities?StateCode= takes it. " +
			"administrativeDivision is null (the source gives no category); tags are empty.",
		access: accessBrand, lastKnownBrand: true, query: stateParams,
		data: reflect.TypeFor[[]refdata.State](), etag: etagRead, limit: limitLists,
		serve: func(h *Handler) http.HandlerFunc { return h.listStates },
	},
	{
		pattern: "GET /api/v1/timezones", id: "listTimezones", tag: tagRefData,
		summary: "List time zones",
		description: "The IANA time zones of the tz database's zone table and UTC, as a bare array ordered by their UTC offset now, " +
			"then by name; value is the offset now (±hh:mm), displayName \"(UTC+07:00) Asia/Ho_Chi_Minh\". " +
			"The ETag changes when an offset does (daylight saving time).",
		access: accessBrand, lastKnownBrand: true,
		data: reflect.TypeFor[[]locales.Timezone](), etag: etagRead, limit: limitLists,
		serve: func(h *Handler) http.HandlerFunc { return h.listTimezones },
	},
	{
		pattern: "GET /api/v1/languages", id: "listLanguages", tag: tagRefData,
		summary: "List languages",
		description: "The ISO 639-1 languages, by code, as a bare array: English and native names from CLDR, countryCode from CLDR's " +
			"likely subtags; a field no source gives is null (dateFormat always).",
		access: accessBrand, lastKnownBrand: true,
		data: reflect.TypeFor[[]locales.Language](), etag: etagRead, limit: limitLists,
		serve: func(h *Handler) http.HandlerFunc { return h.listLanguages },
	},
}
