package httpadapter

import (
	"net/http"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/refdata"
)

// cacheReferenceData is the Cache-Control of list answers: reference data
// changes only by import, and the ETag revalidates cheaply. The answer
// depends on the brand (isDefault), so shared caches must not reuse it.
const cacheReferenceData = "private, max-age=300"

func (h *Handler) registerRefData() {
	h.mux.Handle("GET /api/v1/currencies", h.withBrand(h.rateLimited(limitLists, h.listCurrencies)))
}

// paging reads PageNumber and PageSize.
func (q query) paging() refdata.Paging {
	var p refdata.Paging
	if n := q.int32("PageNumber"); n != nil {
		p.Number = int(*n)
	}
	if n := q.int32("PageSize"); n != nil {
		p.Size = int(*n)
	}
	return p
}

func (h *Handler) listCurrencies(w http.ResponseWriter, r *http.Request) {
	var v envelope.Validation
	q := newQuery(r, &v)
	cq := refdata.CurrencyQuery{
		Code:          q.str("Code"),
		Name:          q.str("Name"),
		NamePlural:    q.str("NamePlural"),
		Symbol:        q.str("Symbol"),
		SymbolNative:  q.str("SymbolNative"),
		DecimalDigits: q.int32("DecimalDigits"),
		Rounding:      q.float("Rounding"),
		Tags:          q.str("Tags"),
		IsCoin:        q.bool("IsCoin"),
		Keywords:      q.str("Keywords"),
		Page:          q.paging(),
	}
	if err := v.Err(); err != nil {
		h.fail(w, r, err)
		return
	}
	page, err := h.svc.RefData.ListCurrencies(r.Context(), brandFrom(r.Context()).DefaultCurrency, cq)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okCached(w, r, page, cacheReferenceData)
}
