package httpadapter

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/mail"
	"github.com/brandbase/brandbase/messages"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/webhooks"
)

// OpenAPIPath is the path of the OpenAPI 3.1 document the handler serves
// (GET, no Brand-URL needed).
const OpenAPIPath = "/api/v1/openapi.json"

// requestRules are what the domain requires of each request body, which
// the Go types alone do not say: the fields it needs (one field error
// "required" each when missing), and groups of which at least one is
// needed.
var requestRules = map[reflect.Type]struct {
	required  []string
	oneOf     []string
	minLength []string
}{
	reflect.TypeFor[LoginRequest]():                     {required: []string{"password"}, oneOf: []string{"username", "emailAddress"}},
	reflect.TypeFor[RefreshRequest]():                   {required: []string{"refreshAuthKey"}},
	reflect.TypeFor[AnalyticsUpdateRequest]():           {required: []string{"appIntegrationId", "trackingId", "apiKey"}, minLength: []string{"appIntegrationId", "trackingId", "apiKey"}},
	reflect.TypeFor[PaymentGatewayUpdateRequest]():      {required: []string{"appIntegrationId", "name"}, minLength: []string{"appIntegrationId", "name"}},
	reflect.TypeFor[integrations.AnalyticsInput]():      {required: []string{"appIntegrationId", "trackingId", "apiKey"}, minLength: []string{"appIntegrationId", "trackingId", "apiKey"}},
	reflect.TypeFor[integrations.PaymentGatewayInput](): {required: []string{"appIntegrationId", "name"}, minLength: []string{"appIntegrationId", "name"}},
	reflect.TypeFor[SMTPUpdateRequest]():                {required: smtpRequired, minLength: []string{"appIntegrationId", "name", "host", "emailAddressFrom"}},
	reflect.TypeFor[integrations.SMTPInput]():           {required: smtpRequired, minLength: []string{"appIntegrationId", "name", "host", "emailAddressFrom"}},
	reflect.TypeFor[mail.TestInput]():                   {required: []string{"host", "port", "emailAddressFrom", "emailAddressTo", "subject", "body"}, minLength: []string{"host", "emailAddressFrom", "emailAddressTo", "subject", "body"}},
	reflect.TypeFor[CheckAuthKeyRequest]():              {required: []string{"authKey"}},
	reflect.TypeFor[RegisterRequest]():                  {required: []string{"password"}, oneOf: []string{"username", "emailAddress"}},
	reflect.TypeFor[ChangePasswordRequest]():            {required: []string{"oldPassword", "newPassword"}},
	reflect.TypeFor[SetPasswordRequest]():               {required: []string{"newPassword"}},
	reflect.TypeFor[ForgotPasswordRequest]():            {required: []string{"emailAddress", "resetPasswordLink"}},
	reflect.TypeFor[ResetPasswordRequest]():             {required: []string{"emailAddress", "token", "newPassword"}},
	reflect.TypeFor[webhooks.Input]():                   {required: []string{"url", "eventTypes"}, minLength: []string{"url"}},
	reflect.TypeFor[UpdateUserRequest]():                {required: []string{"username"}, minLength: []string{"username"}},
	reflect.TypeFor[messages.Input]():                   {required: []string{"eventId", "subject", "body"}, minLength: []string{"eventId", "subject", "body"}},
}

// smtpRequired are the fields an SMTP configuration's body needs.
var smtpRequired = []string{"appIntegrationId", "name", "host", "port", "emailAddressFrom"}

// enumTypes are the string types with a closed set of values.
var enumTypes = map[reflect.Type][]string{
	reflect.TypeFor[auth.Status]():         {string(auth.StatusActive), string(auth.StatusInactive)},
	reflect.TypeFor[integrations.Status](): {string(integrations.StatusActive), string(integrations.StatusInactive)},
	reflect.TypeFor[integrations.Type]():   {string(integrations.TypeAnalytics), string(integrations.TypePaymentGateway), string(integrations.TypeSMTP)},
	reflect.TypeFor[UserDeviceStatus]():    {string(DeviceOnline), string(DeviceOffline)},
}

// fieldDocs describe fields whose meaning their name and type do not carry,
// by component and JSON field name.
var fieldDocs = map[string]map[string]string{
	"AuthResult": {
		"authKey":        "Send it as Auth-Key. 256 random bits, base64url.",
		"refreshAuthKey": "Exchange it for a new pair at /api/v1/users/auth/refresh-auth-key; it works once.",
		"expiresIn":      "When authKey expires: RFC 3339 in UTC.",
		"deviceCode":     "The code of the login's device (X-Device-Code, or one the server made); sent as X-Device-Code on a later login, it logs in from the same device and gets its login allowance. Empty after a refresh.",
	},
	"Analytics": {
		"apiKey":      "Masked: all but the last 4 characters are * (a value shorter than 8 is masked whole).",
		"apiSecret":   "Masked as apiKey.",
		"createdDate": "RFC 3339 with a numeric offset.",
		"updatedDate": "RFC 3339 with a numeric offset.",
	},
	"PaymentGateway": {
		"privateKey":  "Masked: all but the last 4 characters are * (a value shorter than 8 is masked whole).",
		"createdDate": "RFC 3339 with a numeric offset.",
		"updatedDate": "RFC 3339 with a numeric offset.",
	},
	"SMTP": {
		"password":    "Masked: all but the last 4 characters are * (a value shorter than 8 is masked whole); null when there is none (a server without AUTH).",
		"useTls":      "Implicit TLS on port 465, STARTTLS required on any other port; false (plain SMTP) only for a loopback host.",
		"nameFrom":    "The sender's display name; null: the brand's name.",
		"createdDate": "RFC 3339 with a numeric offset.",
		"updatedDate": "RFC 3339 with a numeric offset.",
	},
	"SMTPUpdateRequest": {
		"password": "With username (both or neither). Not sent, or sent back masked: kept; empty: cleared.",
		"useTls":   "Implicit TLS on port 465, STARTTLS required on any other port; false only for a loopback host (tls_required otherwise).",
		"authKey":  "Optional: an authKey of the acting user, valid in the acting brand; authorizes the update in place of Auth-Key (which still authenticates).",
		"brandUrl": "Optional: the acting brand, as Brand-URL names it; the integration is looked up in it.",
	},
	"AnalyticsUpdateRequest": {
		"apiKey":    "Required on every update, at least 1 character; sent back masked (as a GET answers it): the stored key is kept.",
		"apiSecret": "Not sent, or sent back masked: kept; empty: cleared.",
		"authKey":   "Optional: an authKey of the acting user, valid in the acting brand; authorizes the update in place of Auth-Key (which still authenticates).",
		"brandUrl":  "Optional: the acting brand, as Brand-URL names it; the integration is looked up in it.",
	},
	"PaymentGatewayUpdateRequest": {
		"privateKey": "Not sent, or sent back masked: kept; empty: cleared.",
		"authKey":    "Optional: an authKey of the acting user, valid in the acting brand; authorizes the update in place of Auth-Key (which still authenticates).",
		"brandUrl":   "Optional: the acting brand, as Brand-URL names it; the integration is looked up in it.",
	},
	"DeviceUser": {
		"code":             "The device's X-Device-Code, or the code the server made for a login without one (send it as X-Device-Code to log in from this device again).",
		"isMobileApp":      "true: registered from the X-Device-* headers (an app); false: named from a browser's User-Agent.",
		"userDeviceStatus": "Online when used within the last 5 minutes, else Offline.",
		"lastAccessAt":     "When the device was last used (login, refresh or request); written at most once a minute. RFC 3339 with a numeric offset.",
		"createdDate":      "When the device first logged in. RFC 3339 with a numeric offset.",
	},
	"ErrorItem": {
		"code":    "A stable machine-readable code: the rule broken for a field error, else the condition.",
		"field":   "The query parameter, body field or header the item is about; absent otherwise.",
		"message": "Human-readable text (what clients of the spec's origin show).",
		"details": "The same text as message (kept for older clients).",
	},
}

// headerDocs describe the request headers of routes.
var headerDocs = map[string]string{
	"X-Device-Code":        "Unique identifier of the device; with it the login registers or updates the device.",
	"X-Device-Token":       "Push-notification token of the device.",
	"X-Device-Name":        "Name or model of the device.",
	"X-App-Version-Number": "Version of the calling application.",
	"X-Os-Device":          "Operating system of the device (iOS, Android).",
	"Device-Code":          "The device the request comes from; a revoked device is refused (403 device_revoked).",
	"If-Match":             "An ETag of the configuration; a stale one is refused (412 precondition_failed).",
	"If-None-Match":        "An ETag; when it still matches the answer is 304 Not Modified.",
}

// statusDocs describe each status the adapter answers with.
var statusDocs = map[int]string{
	200: "OK.",
	201: "Created: data is the new record.",
	304: "Not modified: the If-None-Match ETag still matches.",
	400: "Invalid request.",
	401: "Not authenticated.",
	403: "Forbidden.",
	404: "Not found.",
	409: "Conflict.",
	408: "Request timeout: the request body did not arrive before the server's read timeout.",
	412: "Precondition failed: the If-Match ETag is stale.",
	413: "Request body over " + strconv.Itoa(MaxBodyBytes) + " bytes.",
	415: "Request body not JSON.",
	429: "Too many requests: retry after Retry-After seconds.",
	500: "Internal error; the details are only in the server's log.",
	503: "Unavailable for a moment: retry after Retry-After seconds.",
}

// errorCodes returns the error codes op may answer, by status.
func (op route) errorCodes() map[int][]string {
	codes := map[int][]string{}
	add := func(status int, cs ...string) {
		for _, c := range cs {
			if !slices.Contains(codes[status], c) {
				codes[status] = append(codes[status], c)
			}
		}
	}
	if op.access >= accessBrand {
		add(400, auth.CodeBrandURLRequired)
		add(404, auth.CodeBrandNotFound)
		add(403, auth.CodeBrandInactive)
	}
	if op.access == accessAuthKey {
		add(401, auth.CodeUnauthenticated)
		add(403, auth.CodeDeviceRevoked)
	}
	if op.body != nil {
		add(400, "malformed_json", "invalid_type", "duplicate_field", "invalid_format")
		add(408, errRequestTimeout.Code)
		add(413, "body_too_large")
		add(415, "unsupported_media_type")
	}
	if len(op.query) > 0 {
		add(400, "invalid_type", "out_of_range", "invalid_enum", "too_long")
	}
	if op.limit != 0 {
		add(429, errRateLimited.Code)
	}
	if op.etag == etagWrite {
		add(412, integrations.CodePreconditionFailed)
	}
	for status, cs := range op.errors {
		add(status, cs...)
	}
	if !op.raw {
		add(500, "internal_error")
	}
	return codes
}

// openAPI builds the OpenAPI 3.1 document of the routes h serves. It
// fails when a type of the table cannot be described faithfully or a
// description names a field that does not exist. writeOpenAPI writes it
// as JSON.
func (h *Handler) openAPI() (map[string]any, error) {
	s := newSchemas(enumTypes)
	envRef := s.ref(reflect.TypeFor[envelope.Envelope](), modeResponse)
	s.components["ErrorEnvelope"] = map[string]any{
		"description": "The envelope of a failed request: errors holds at least one item.",
		"allOf": []any{envRef, map[string]any{"properties": map[string]any{
			"success": map[string]any{"const": false},
			"data":    map[string]any{"type": "null"},
			"errors":  map[string]any{"minItems": 1},
		}}},
	}
	paths := map[string]map[string]any{}
	var tags []string
	for _, op := range routes {
		if !h.serves(op) {
			continue
		}
		method, path, _ := strings.Cut(op.pattern, " ")
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(method)] = h.openAPIOperation(s, op, method, path)
		if !slices.Contains(tags, op.tag) {
			tags = append(tags, op.tag)
		}
	}
	if err := applyFieldDocs(s); err != nil {
		return nil, err
	}
	if s.err != nil {
		return nil, s.err
	}
	tagList := make([]any, len(tags))
	for i, t := range tags {
		desc, ok := tagDescriptions[t]
		if !ok {
			return nil, fmt.Errorf("httpadapter: openapi: no description of tag %s", t)
		}
		tagList[i] = map[string]any{"name": t, "description": desc}
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "brandbase",
			"version": "v1",
			"description": "Authentication, reference data (currencies, countries, cities) and app-integration configuration, per brand. " +
				"Every call names its brand in the Brand-URL header; every answer but this document is one JSON envelope " +
				"{success, statusCode, message, data, errors}, errors included.",
			"license": map[string]any{"name": "MIT", "identifier": "MIT"},
		},
		// The server that serves the document: every path holds /api/v1,
		// wherever the host mounts the adapter's handler.
		"servers": []any{map[string]any{"url": "/", "description": "The server that serves this document."}},
		"tags":    tagList,
		"paths":   paths,
		"components": map[string]any{
			"schemas": s.components,
			"securitySchemes": map[string]any{
				"BrandURL": map[string]any{"type": "apiKey", "in": "header", "name": "Brand-URL",
					"description": "The brand's domain; https://Shop.Example.com/ and shop.example.com are the same brand."},
				"AuthKey": map[string]any{"type": "apiKey", "in": "header", "name": "Auth-Key",
					"description": "An authKey from POST /api/v1/users/auth, valid in the Brand-URL's brand."},
			},
			"headers": responseHeaders,
		},
	}
	return doc, nil
}

// openAPIJSON is the OpenAPI document as served, and its entity tag.
type openAPIJSON struct {
	body []byte
	etag string
	err  error
}

// writeOpenAPI returns a function that writes doc as JSON at its first
// call, once: most handlers never serve it (tests, hosts that do not
// publish it), and its writing is most of a Handler's making.
func writeOpenAPI(doc map[string]any) func() openAPIJSON {
	return sync.OnceValue(func() openAPIJSON {
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return openAPIJSON{err: fmt.Errorf("httpadapter: openapi: %w", err)}
		}
		return openAPIJSON{body: b, etag: bodyETag(b)}
	})
}

// responseHeaders are the response headers the document refers to.
var responseHeaders = map[string]any{
	"ETag":                header("The entity tag of the answer, for If-None-Match (and If-Match on updates).", "string"),
	"RateLimit-Limit":     header("The route's burst: requests allowed at once.", "integer"),
	"RateLimit-Remaining": header("Requests left in the bucket.", "integer"),
	"RateLimit-Reset":     header("Seconds until the bucket is full again.", "integer"),
	"RateLimit-Policy":    header("The policy: burst;w=window in seconds.", "string"),
	"Retry-After":         header("Seconds to wait before retrying.", "integer"),
}

func header(description, typ string) map[string]any {
	return map[string]any{"description": description, "schema": map[string]any{"type": typ}}
}

func headerRef(name string) map[string]any {
	return map[string]any{"$ref": "#/components/headers/" + name}
}

// openAPIOperation returns the operation object of op.
func (h *Handler) openAPIOperation(s *schemas, op route, method, path string) map[string]any {
	out := map[string]any{
		"operationId": op.id,
		"summary":     op.summary,
		"description": op.description,
		"tags":        []any{op.tag},
	}
	switch op.access {
	case accessPublic:
		out["security"] = []any{}
	case accessBrand:
		out["security"] = []any{map[string]any{"BrandURL": []any{}}}
	case accessAuthKey:
		out["security"] = []any{map[string]any{"BrandURL": []any{}, "AuthKey": []any{}}}
	}
	if params := s.parameters(op, path); len(params) > 0 {
		out["parameters"] = params
	}
	if op.body != nil {
		out["requestBody"] = map[string]any{
			"required": true,
			"content":  map[string]any{"application/json": map[string]any{"schema": s.requestBody(op.body)}},
		}
	}
	// The responses last: component names depend on the order types are
	// first met (a request type named after an answer's gets "Input").
	out["responses"] = s.responses(op)
	return out
}

// parameters returns the parameters of op, mounted at path: its path
// parameters, its query parameters and the request headers it reads.
func (s *schemas) parameters(op route, path string) []any {
	var params []any
	for _, name := range pathParams(path) {
		params = append(params, map[string]any{"name": name, "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
	}
	if len(op.query) > 0 {
		params = append(params, s.queryParams(op.query)...)
	}
	headers := slices.Clone(op.headers)
	if op.access == accessAuthKey {
		headers = append(headers, "Device-Code")
	}
	if op.etag == etagRead {
		headers = append(headers, "If-None-Match")
	}
	for _, name := range headers {
		doc, ok := headerDocs[name]
		if !ok {
			s.fail(fmt.Errorf("httpadapter: openapi: no description of header %s", name))
		}
		params = append(params, map[string]any{"name": name, "in": "header", "description": doc, "schema": map[string]any{"type": "string"}})
	}
	return params
}

// responses returns the responses object of op: its success (with the
// headers its ETag use and limit imply), 304 where it reads with ETags, and
// one answer per error status with the codes it may carry.
func (s *schemas) responses(op route) map[string]any {
	ok := map[string]any{"description": statusDocs[200]}
	okHeaders := map[string]any{}
	if op.etag != etagNone {
		okHeaders["ETag"] = headerRef("ETag")
	}
	if op.limit != 0 {
		for _, name := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"} {
			okHeaders[name] = headerRef(name)
		}
	}
	if len(okHeaders) > 0 {
		ok["headers"] = okHeaders
	}
	if op.raw {
		ok["content"] = map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}
	} else {
		ok["content"] = jsonContent(s.successEnvelope(op.data))
	}
	success := "200"
	if op.created {
		success, ok["description"] = "201", statusDocs[201]
	}
	responses := map[string]any{success: ok}
	if op.etag == etagRead {
		responses["304"] = map[string]any{"description": statusDocs[304]}
	}
	for status, codes := range op.errorCodes() {
		r := map[string]any{
			"description": statusDocs[status] + " Codes: " + strings.Join(codes, ", ") + ".",
			"content":     jsonContent(map[string]any{"$ref": componentRefStart + "ErrorEnvelope"}),
		}
		if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
			r["headers"] = map[string]any{"Retry-After": headerRef("Retry-After")}
		}
		responses[strconv.Itoa(status)] = r
	}
	return responses
}

func jsonContent(schema map[string]any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

// pathParams returns the names of the {name} segments of path.
func pathParams(path string) []string {
	var names []string
	for seg := range strings.SplitSeq(path, "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			names = append(names, strings.TrimSuffix(strings.TrimSuffix(name, "}"), "..."))
		}
	}
	return names
}

// successEnvelope returns a $ref to the component of the envelope of a
// successful answer whose data is of type data (null when nil), creating
// it: <Data>Envelope, or EmptyEnvelope.
func (s *schemas) successEnvelope(data reflect.Type) map[string]any {
	name, dataSchema := "EmptyEnvelope", map[string]any{"type": "null"}
	if data != nil {
		dataSchema = s.ref(data, modeResponse)
		name = envelopeName(dataSchema) + "Envelope"
	}
	if _, ok := s.components[name]; !ok {
		s.components[name] = map[string]any{
			"allOf": []any{
				map[string]any{"$ref": componentRefStart + "Envelope"},
				map[string]any{"properties": map[string]any{
					"success": map[string]any{"const": true},
					"data":    dataSchema,
					"errors":  map[string]any{"maxItems": 0},
				}},
			},
		}
	}
	return map[string]any{"$ref": componentRefStart + name}
}

// envelopeName names the envelope of data of schema sch: the component it
// refers to (Currency), that name with List for an array of components
// (CurrencyList), else its JSON type (Boolean).
func envelopeName(sch map[string]any) string {
	if ref, ok := sch["$ref"].(string); ok {
		return strings.TrimPrefix(ref, componentRefStart)
	}
	if items, ok := sch["items"].(map[string]any); ok && sch["type"] == "array" {
		return envelopeName(items) + "List"
	}
	typ, _ := sch["type"].(string)
	if typ == "" {
		return "Any"
	}
	return strings.ToUpper(typ[:1]) + typ[1:]
}

// requestBody returns the schema of a request body of type t: its fields
// from the type, what the domain requires from requestRules.
func (s *schemas) requestBody(t reflect.Type) map[string]any {
	ref := s.ref(t, modeRequest)
	name := strings.TrimPrefix(ref["$ref"].(string), componentRefStart)
	sch := s.components[name].(map[string]any)
	props := sch["properties"].(map[string]any)
	rules := requestRules[t]
	for _, f := range slices.Concat(rules.required, rules.oneOf, rules.minLength) {
		if _, ok := props[f]; !ok {
			s.fail(fmt.Errorf("httpadapter: openapi: %s has no field %s", name, f))
		}
	}
	if len(rules.required) > 0 {
		sch["required"] = rules.required
	}
	for _, f := range rules.required { // null is "not sent": not allowed for a required field
		p := maps.Clone(props[f].(map[string]any))
		if types, ok := p["type"].([]any); ok {
			p["type"] = slices.DeleteFunc(slices.Clone(types), func(v any) bool { return v == "null" })[0]
		}
		props[f] = p
	}
	if len(rules.oneOf) > 0 {
		var alts []any
		for _, f := range rules.oneOf {
			alts = append(alts, map[string]any{"required": []any{f}})
		}
		sch["anyOf"] = alts
	}
	for _, f := range rules.minLength {
		p := maps.Clone(props[f].(map[string]any))
		p["minLength"] = 1
		props[f] = p
	}
	return ref
}

// queryParams returns the OpenAPI parameters of a list's declared query
// parameters: the schema of each from its type, its description from its
// declaration.
func (s *schemas) queryParams(params []refdata.Param) []any {
	var out []any
	for _, p := range params {
		schema := s.ref(p.Type, modeRequest)
		if p.Kind == refdata.ParamPage {
			schema["minimum"], schema["default"] = 0, 0
			if p.Name == "PageSize" {
				schema["default"] = refdata.DefaultPageSize
			}
		}
		out = append(out, map[string]any{"name": p.Name, "in": "query", "description": p.Doc, "schema": schema})
	}
	return out
}

// applyFieldDocs adds the descriptions of fieldDocs to the components. It
// fails when one names a component or field that does not exist.
func applyFieldDocs(s *schemas) error {
	for comp, fields := range fieldDocs {
		sch, ok := s.components[comp].(map[string]any)
		if !ok {
			continue // not in this document (a service not configured)
		}
		props := sch["properties"].(map[string]any)
		for field, doc := range fields {
			p, ok := props[field].(map[string]any)
			if !ok {
				return fmt.Errorf("httpadapter: openapi: %s has no field %s to describe", comp, field)
			}
			p = maps.Clone(p)
			p["description"] = doc
			props[field] = p
		}
	}
	return nil
}

// serveOpenAPI answers GET /api/v1/openapi.json with the document built
// by New, written once; it needs no Brand-URL.
func (h *Handler) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	doc := h.openAPIDoc()
	if doc.err != nil {
		h.fail(w, r, doc.err)
		return
	}
	hd := w.Header()
	hd.Set("ETag", doc.etag)
	hd.Set("Cache-Control", "public, max-age=300")
	if etagMatches(r.Header.Get("If-None-Match"), doc.etag, true) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	envelope.WriteJSON(w, http.StatusOK, doc.body)
}

// OpenAPI returns the OpenAPI 3.1 document of the routes h serves, as
// served at [OpenAPIPath]: for a host that publishes or merges it
// elsewhere. The caller may modify the returned slice.
func (h *Handler) OpenAPI() []byte {
	return slices.Clone(h.openAPIDoc().body)
}
