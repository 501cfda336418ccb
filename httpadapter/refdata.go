package httpadapter

import (
	"context"
	"net/http"
	"sync"

	"github.com/brandbase/brandbase/refdata"
)

// cacheReferenceData is the Cache-Control of list answers: reference data
// changes only by import, and the ETag revalidates cheaply. The answer
// depends on the brand (isDefault), so shared caches must not reuse it.
const cacheReferenceData = "private, max-age=300"

// serveList answers a list route (currencies, countries, cities) with the
// page list computes, from h's list cache when the same query was answered
// from the same version of the reference data. perBrand says the answer
// depends on the brand's default currency.
func (h *Handler) serveList(perBrand bool, list func(r *http.Request) (any, error)) http.HandlerFunc {
	cache := h.lists
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		key := r.URL.Path + "?" + r.URL.RawQuery
		if perBrand {
			key += "#" + brandFrom(ctx).DefaultCurrency
		}
		// The version is that of the snapshot lists answer from now (the
		// one held while the store cannot be read, or is behind): the list
		// then answers from it or a later one, whose version this one
		// never becomes again, so that an answer is filed under the data
		// it was computed from, never under a store revision its snapshot
		// does not hold.
		version, verErr := h.svc.RefData.ListVersion(ctx)
		if verErr == nil {
			e, ok := cache.get(version, key)
			h.tel.ListCacheLookup(ctx, ok)
			if ok {
				h.okEncoded(w, r, e.body, e.etag, cacheReferenceData)
				return
			}
		}
		data, err := list(r)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		e, err := encodeList(data)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if verErr == nil {
			cache.put(version, key, e)
		}
		h.okEncoded(w, r, e.body, e.etag, cacheReferenceData)
	}
}

// listQuery answers a list route: it parses the request's query string
// as a Q, as the query type declares its parameters (refdata.ParseQuery:
// names in any case, the first of a repeated parameter, an empty value
// absent), and lists the page list selects.
func listQuery[Q refdata.Query, T any](list func(ctx context.Context, q Q) (T, error)) func(r *http.Request) (any, error) {
	return func(r *http.Request) (any, error) {
		q, err := refdata.ParseQuery[Q](newQuery(r).get)
		if err != nil {
			return nil, err
		}
		return list(r.Context(), q)
	}
}

// listCurrencies lists currencies; isDefault marks the brand's
// default currency.
func (h *Handler) listCurrencies(ctx context.Context, q refdata.CurrencyQuery) (refdata.Page[refdata.Currency], error) {
	q.DefaultCurrency = brandFrom(ctx).DefaultCurrency
	return h.svc.RefData.ListCurrencies(ctx, q)
}

// listCacheBytes bounds the bodies the list cache keeps.
const listCacheBytes = 16 << 20

// listCache keeps encoded list answers by request (path, raw query and,
// for currencies, the brand's default currency), for one version of the
// reference data (refdata.Service.ListVersion): a later version empties
// it, an earlier one finds and keeps nothing. Its size is bounded: when a
// new answer does not fit, arbitrary old ones are dropped, and an answer
// larger than an eighth of the bound is not kept.
type listCache struct {
	mu      sync.Mutex
	rev     uint64
	entries map[string]cachedAnswer
	bytes   int
	max     int
}

// cachedAnswer is an encoded envelope and its strong ETag.
type cachedAnswer struct {
	body []byte
	etag string
}

func newListCache(maxBytes int) *listCache {
	return &listCache{entries: map[string]cachedAnswer{}, max: maxBytes}
}

// sync empties c when rev is later than its version, and reports
// whether rev is its version now. c.mu must be held.
func (c *listCache) sync(rev uint64) bool {
	if rev > c.rev {
		clear(c.entries)
		c.rev, c.bytes = rev, 0
	}
	return rev == c.rev
}

func (c *listCache) get(rev uint64, key string) (cachedAnswer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sync(rev) {
		return cachedAnswer{}, false
	}
	e, ok := c.entries[key]
	return e, ok
}

func (c *listCache) put(rev uint64, key string, e cachedAnswer) {
	size := len(key) + len(e.body) + len(e.etag)
	if size > c.max/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sync(rev) {
		return
	}
	if old, ok := c.entries[key]; ok {
		delete(c.entries, key)
		c.bytes -= len(key) + len(old.body) + len(old.etag)
	}
	for k, old := range c.entries { // map order: an arbitrary victim
		if c.bytes+size <= c.max {
			break
		}
		delete(c.entries, k)
		c.bytes -= len(k) + len(old.body) + len(old.etag)
	}
	c.entries[key] = e
	c.bytes += size
}
