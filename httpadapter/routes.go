package httpadapter

import (
	"net/http"
	"reflect"
	"slices"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/refdata"
)

// access says which headers identify the caller of a route, and so the
// middleware mount puts in front of it.
type access int

const (
	accessPublic  access = iota // no header
	accessBrand                 // Brand-URL
	accessAuthKey               // Brand-URL and Auth-Key
)

// etagUse says how a route uses entity tags.
type etagUse int

const (
	etagNone  etagUse = iota
	etagRead          // answers carry ETag; If-None-Match may get 304
	etagWrite         // answers carry ETag; If-Match may get 412
	etagSent          // answers carry ETag, for a later If-Match (a create's)
)

// route is one route of the adapter, declared once: how it is mounted
// (pattern, access, limit, serve) and how the OpenAPI document describes
// it. The table [routes] is the one description of the HTTP interface:
// [New] mounts it and builds the document from it; the OpenAPI tests check
// the document's schemas against real answers.
type route struct {
	// pattern is the route as mounted: "METHOD /path", with {name} path
	// parameters as both ServeMux and OpenAPI write them.
	pattern     string
	id          string // operationId
	tag         string
	summary     string
	description string
	access      access
	// lastKnownBrand: the answer holds nothing a revocation protects, so
	// while the store cannot be reached the brand may be resolved from the
	// last record of it this instance read (withLastKnownBrand).
	lastKnownBrand bool
	// integrations: the route exists only when Services.Integrations is set.
	integrations bool
	// webhooks: the route exists only when Services.Webhooks is set;
	// queue: and only when it has the outbox's queue (deliveries).
	webhooks, queue bool
	// sender: the route exists only when the auth service has a message
	// sender (auth.Service.SendsMessages).
	sender bool
	// messages: the route exists only when Services.Messages is set.
	messages bool
	// mail: the route exists only when Services.Mail is set.
	mail bool
	// premux: the route is mounted on a mux of its own, looked up before
	// the others, because the standard mux refuses its pattern beside
	// another route's that matches some same path with neither more
	// specific (GET users/by-username/{username} and GET
	// users/{userId}/devices both match users/by-username/devices; no
	// user id is "by-username", so the premux route wins).
	premux bool
	// query are the query parameters, as the refdata query type declares
	// them.
	query []refdata.Param
	// headers are request headers beyond Brand-URL and Auth-Key.
	headers []string
	// body is the request body's type; nil without a body.
	body reflect.Type
	// data is the type of the envelope's data on success; nil for null.
	data reflect.Type
	// created: the success status is 201 Created, not 200.
	created bool
	// raw: the answer is data itself, not an envelope.
	raw  bool
	etag etagUse
	// limit is the rate limit of the route (RateLimit-* headers, 429);
	// zero for none.
	limit limitScope
	// serve returns the handler of the route, which runs behind the
	// middleware of its access and limit.
	serve func(h *Handler) http.HandlerFunc
	// errors are the route's own error codes by status, beyond those its
	// access, body, query, ETag use and rate limit imply.
	errors map[int][]string
}

// The tags of the document, in the order listed.
const (
	tagRefData      = "Reference data"
	tagAuth         = "Authentication"
	tagIntegrations = "Integrations"
	tagAccount      = "Account"
	tagWebhooks     = "Webhooks"
	tagMessages     = "Messages"
	tagMeta         = "Meta"
	tagAdmin        = "Administration"
)

// tagDescriptions describe each tag in the document; openAPI fails for a
// tag without one.
var tagDescriptions = map[string]string{
	tagRefData: "The compiled-in reference data: paginated, filterable lists of currencies, countries and cities, " +
		"and the states, time zones and languages a client's forms ask for.",
	tagAuth:         "Logging in and out with a username or email address and a password, and refreshing the auth-key pair a login gives.",
	tagIntegrations: "The brand's app integrations: analytics, payment-gateway and SMTP configurations, their lists, creation, update and deletion, and a test message through SMTP settings.",
	tagAccount:      "The brand's users and their own account: the current user, registration, passwords and their reset, devices, and the brand itself.",
	tagWebhooks: "The brand's webhook endpoints: signed deliveries of the events the service emits (Standard Webhooks 1.0), " +
		"their secrets, deliveries and replays. docs/webhooks.md tells how to verify a delivery.",
	tagMeta: "This document.",
	tagAdmin: "The administration of the brand's users: listing, searching, counting and reading them (users.read), " +
		"changing, deleting them and their status (users.write, holding every permission of the user acted on).",
	tagMessages: "The brand's message templates: the subject, text and HTML of each kind of message, per language, and their placeholders.",
}

// routes are every route the adapter mounts, in mounting order: the
// spec's, then those of the spec's origin's client (each group in its
// file).
var routes = slices.Concat(specRoutes, integrationAdminRoutes, smtpRoutes, clientListRoutes, webhookRoutes, userAdminRoutes,
	emailTemplateRoutes)

// specRoutes are the routes of the interface spec, and their extensions.
var specRoutes = []route{
	{
		pattern: "GET /api/v1/currencies", id: "listCurrencies", tag: tagRefData,
		summary:     "List currencies",
		description: "A page of the ISO 4217 currencies and common cryptocurrencies. isDefault marks the brand's default currency.",
		access:      accessBrand, lastKnownBrand: true, query: refdata.Params[refdata.CurrencyQuery](),
		data: reflect.TypeFor[refdata.Page[refdata.Currency]](), etag: etagRead, limit: limitLists,
		serve: func(h *Handler) http.HandlerFunc { return h.serveList(true, listQuery(h.listCurrencies)) },
	},
	{
		pattern: "GET /api/v1/countries", id: "listCountries", tag: tagRefData,
		summary:     "List countries",
		description: "A page of the ISO 3166-1 countries.",
		access:      accessBrand, lastKnownBrand: true, query: refdata.Params[refdata.CountryQuery](),
		data: reflect.TypeFor[refdata.Page[refdata.Country]](), etag: etagRead, limit: limitLists,
		serve: func(h *Handler) http.HandlerFunc { return h.serveList(false, listQuery(h.svc.RefData.ListCountries)) },
	},
	{
		pattern: "GET /api/v1/cities", id: "listCities", tag: tagRefData,
		summary:     "List cities",
		description: "A page of cities; without SortDataField in the order they were loaded. A city has no id.",
		access:      accessBrand, lastKnownBrand: true, query: refdata.Params[refdata.CityQuery](),
		data: reflect.TypeFor[refdata.Page[refdata.City]](), etag: etagRead, limit: limitLists,
		serve: func(h *Handler) http.HandlerFunc { return h.serveList(false, listQuery(h.svc.RefData.ListCities)) },
	},
	{
		pattern: "POST /api/v1/users/auth", id: "login", tag: tagAuth,
		summary: "Log in",
		description: "Checks a username or emailAddress (case-insensitive) and password and answers a new key pair. " +
			"A wrong identifier and a wrong password get the same answer. The X-Device-* headers register the device the login comes from. " +
			"While password hashing is busy past its wait bound the answer is 503 unavailable with Retry-After, whoever the user is.",
		access: accessBrand, headers: []string{"X-Device-Code", "X-Device-Token", "X-Device-Name", "X-App-Version-Number", "X-Os-Device"},
		body: reflect.TypeFor[LoginRequest](), data: reflect.TypeFor[AuthResult](), limit: limitLoginIP,
		errors: map[int][]string{
			400: {"required", "too_long", "invalid_type"},
			401: {auth.CodeInvalidCredentials},
			403: {auth.CodeUserInactive, auth.CodeUserLocked, auth.CodeUserSuspended, auth.CodeDeviceRevoked},
			503: {"unavailable"}, // every password hashing slot busy past the wait bound
		},
		serve: func(h *Handler) http.HandlerFunc { return h.login },
	},
	{
		pattern: "POST /api/v1/users/auth/refresh-auth-key", id: "refreshAuthKey", tag: tagAuth,
		summary: "Refresh a key pair",
		description: "Exchanges a refreshAuthKey for a new key pair; the old pair stops working. " +
			"A refresh key presented twice revokes every pair descended from its login.",
		access: accessBrand, headers: []string{"Device-Code"},
		body: reflect.TypeFor[RefreshRequest](), data: reflect.TypeFor[AuthResult](), limit: limitRefreshIP,
		errors: map[int][]string{
			400: {"required", "invalid_type"},
			401: {auth.CodeUnauthenticated},
			403: {auth.CodeDeviceRevoked},
		},
		serve: func(h *Handler) http.HandlerFunc { return h.refresh },
	},
	{
		pattern: "DELETE /api/v1/users/auth", id: "logout", tag: tagAuth,
		summary:     "Log out",
		description: "Revokes the key pair of the Auth-Key header (both keys).",
		access:      accessAuthKey,
		serve:       func(h *Handler) http.HandlerFunc { return h.logout },
	},
	// Devices: the sessions a user sees (docs/authentication.md, "Devices").
	{
		pattern: "GET /api/v1/users/{userId}/devices", id: "getDevicesFromUser", tag: tagAuth,
		summary: "List a user's devices",
		description: "The devices the user is signed in on (every login is one), oldest first. Open to the user themself, " +
			"or to a user of the brand holding users.write and every permission the user holds. isMobileApp=true keeps the devices registered from X-Device-* headers, " +
			"false those named from a browser's User-Agent.",
		access: accessAuthKey, query: []refdata.Param{{Name: "isMobileApp", Type: reflect.TypeFor[bool](),
			Doc: "true or false: keep only the devices whose isMobileApp is this."}},
		data: reflect.TypeFor[[]DeviceUser](),
		errors: map[int][]string{
			400: {"invalid_type"},
			403: {auth.CodeAccessDenied},
			404: {"not_found"},
		},
		serve: func(h *Handler) http.HandlerFunc { return h.listUserDevices },
	},
	{
		pattern: "DELETE /api/v1/users/{userId}/devices/{deviceId}", id: "removeDeviceFromUser", tag: tagAuth,
		summary: "End a device's sessions",
		description: "Revokes every key pair of the device (refused on every instance within 1 s) and removes it from the list; " +
			"it may log in again with the password. Open to the user themself, or to a user of the brand holding users.write " +
			"and every permission the user holds. " +
			"data is true.",
		access: accessAuthKey, data: reflect.TypeFor[bool](), limit: limitUpdates,
		errors: map[int][]string{
			403: {auth.CodeAccessDenied},
			404: {"not_found"},
		},
		serve: func(h *Handler) http.HandlerFunc { return h.deleteUserDevice },
	},
	{
		pattern: "GET /api/v1/devices/current", id: "getCurrentDevice", tag: tagAuth,
		summary:     "The caller's device",
		description: "The device the Auth-Key was issued on.",
		access:      accessAuthKey, data: reflect.TypeFor[DeviceUser](),
		errors: map[int][]string{404: {"not_found"}},
		serve:  func(h *Handler) http.HandlerFunc { return h.currentDevice },
	},
	{
		pattern: "GET /api/v1/app-integrations/analytics/{id}", id: "getAnalytics", tag: tagIntegrations,
		summary:     "Read an analytics integration",
		description: "Any user of the brand may read; apiKey and apiSecret are masked (all but the last 4 characters are *).",
		access:      accessAuthKey, integrations: true, data: reflect.TypeFor[integrations.Analytics](), etag: etagRead,
		errors: map[int][]string{404: {"not_found"}},
		serve:  func(h *Handler) http.HandlerFunc { return getRecord(h, h.svc.Integrations.Analytics) },
	},
	{
		pattern: "PUT /api/v1/app-integrations/analytics/{id}", id: "updateAnalytics", tag: tagIntegrations,
		summary: "Update an analytics integration",
		description: "Replaces the configuration; needs integrations.analytics.write. A secret not sent, or sent back masked, " +
			"keeps the stored one; a status not sent keeps the stored status. The status is Inactive while the app integration is. " +
			"Setting isDefault clears it on the brand's other analytics integrations. The body's authKey and brandUrl, when present, " +
			"name who acts and in which brand.",
		access: accessAuthKey, integrations: true, headers: []string{"If-Match"},
		body: reflect.TypeFor[AnalyticsUpdateRequest](), data: reflect.TypeFor[integrations.Analytics](), etag: etagWrite, limit: limitUpdates,
		errors: map[int][]string{
			400: {"required", "too_short", "too_long", "invalid_enum", "unknown_reference", "type_mismatch", "invalid_type"},
			403: {integrations.CodeAccessDenied},
			404: {"not_found"},
		},
		serve: putAnalytics,
	},
	{
		pattern: "GET /api/v1/app-integrations/payment-gateway/{id}", id: "getPaymentGateway", tag: tagIntegrations,
		summary:     "Read a payment-gateway integration",
		description: "Any user of the brand may read; privateKey is masked (all but the last 4 characters are *).",
		access:      accessAuthKey, integrations: true, data: reflect.TypeFor[integrations.PaymentGateway](), etag: etagRead,
		errors: map[int][]string{404: {"not_found"}},
		serve:  func(h *Handler) http.HandlerFunc { return getRecord(h, h.svc.Integrations.PaymentGateway) },
	},
	{
		pattern: "PUT /api/v1/app-integrations/payment-gateway/{id}", id: "updatePaymentGateway", tag: tagIntegrations,
		summary: "Update a payment-gateway integration",
		description: "Replaces the configuration; needs integrations.payment-gateway.write. Every link is an absolute http(s) URL, " +
			"https unless testMode or the host is localhost. privateKey not sent, or sent back masked, keeps the stored one. " +
			"The body's authKey and brandUrl, when present, name who acts and in which brand.",
		access: accessAuthKey, integrations: true, headers: []string{"If-Match"},
		body: reflect.TypeFor[PaymentGatewayUpdateRequest](), data: reflect.TypeFor[integrations.PaymentGateway](), etag: etagWrite, limit: limitUpdates,
		errors: map[int][]string{
			400: {"required", "too_short", "too_long", "invalid_url", "https_required", "invalid_enum", "unknown_reference", "type_mismatch", "invalid_type"},
			403: {integrations.CodeAccessDenied},
			404: {"not_found"},
		},
		serve: putPaymentGateway,
	},
	// The account routes (httpadapter/account.go), in jfw-js's paths.
	{
		pattern: "GET /api/v1/users/me", id: "getCurrentUser", tag: tagAccount,
		summary:     "The current user",
		description: "The user the Auth-Key belongs to, with the permissions it holds.",
		access:      accessAuthKey, data: reflect.TypeFor[UserResult](),
		serve: func(h *Handler) http.HandlerFunc { return h.getMe },
	},
	{
		pattern: "POST /api/v1/users/check-auth-key-available", id: "checkAuthKeyAvailable", tag: tagAccount,
		summary:     "Check an Auth-Key",
		description: "true when authKey works in this brand now; false when it is unknown, expired, revoked or of another brand (never 401). Limited as refresh is.",
		access:      accessBrand, body: reflect.TypeFor[CheckAuthKeyRequest](), data: reflect.TypeFor[bool](), limit: limitCheckKeyIP,
		errors: map[int][]string{400: {"required"}},
		serve:  func(h *Handler) http.HandlerFunc { return h.checkAuthKey },
	},
	{
		pattern: "POST /api/v1/users/register", id: "registerUser", tag: tagAccount,
		summary: "Sign up",
		description: "Creates an active user without any permission and answers 201 with it, when the brand opens sign-up " +
			"(a brand setting; closed by default: 403 registration_closed). A username or an emailAddress is required " +
			"(the address is the username when none is given). Passwords: 8 characters to 1024 bytes, not one of the " +
			"10,000 most common. A taken username or emailAddress is 409 user_exists with the field. Limited per client IP.",
		access: accessBrand, body: reflect.TypeFor[RegisterRequest](), data: reflect.TypeFor[UserResult](), created: true, limit: limitRegisterIP,
		errors: map[int][]string{
			400: {"required", "too_short", "too_long", auth.CodeTooCommon, "invalid_email", "invalid_phone"},
			403: {auth.CodeRegistrationClosed},
			409: {"user_exists"},
		},
		serve: func(h *Handler) http.HandlerFunc { return h.register },
	},
	{
		pattern: "PUT /api/v1/users/change-password", id: "changePassword", tag: tagAccount,
		summary: "Change the caller's password",
		description: "Checks oldPassword (limited as a login is), sets newPassword, ends every other session of the user " +
			"on every instance, and answers a new key pair for the caller, which stays signed in.",
		access: accessAuthKey, body: reflect.TypeFor[ChangePasswordRequest](), data: reflect.TypeFor[AuthResult](), limit: limitPasswordChange,
		errors: map[int][]string{
			400: {"required", "too_short", "too_long", auth.CodeTooCommon, auth.CodeMismatch, auth.CodeIncorrectPassword},
			503: {"unavailable"},
		},
		serve: func(h *Handler) http.HandlerFunc { return h.changePassword },
	},
	{
		pattern: "PUT /api/v1/users/{id}/change-password", id: "changePasswordOfUser", tag: tagAccount,
		summary: "Set another user's password",
		description: "Needs users.write and every permission the user holds. Sets the password of a user of the caller's brand " +
			"and ends every session of that user. Answers true. The caller's own id is refused (403 access_denied): " +
			"PUT users/change-password changes one's own password, checking the old one.",
		access: accessAuthKey, body: reflect.TypeFor[SetPasswordRequest](), data: reflect.TypeFor[bool](), limit: limitUpdates,
		errors: map[int][]string{
			400: {"required", "too_short", "too_long", auth.CodeTooCommon, auth.CodeMismatch},
			403: {"access_denied"},
			404: {"not_found"},
		},
		serve: func(h *Handler) http.HandlerFunc { return h.setPassword },
	},
	{
		pattern: "POST /api/v1/users/forgot-password", id: "forgotPassword", tag: tagAccount,
		summary: "Ask for a password-reset link",
		description: "Answers true, the same and in the same time, whether the address is known or not. For a known one it makes a " +
			"single-use token (one hour) and hands the host resetPasswordLink with token and emailAddress added as query parameters. " +
			"The link's origin must be https:// and the brand's own URL, or one the brand allows: otherwise 400 origin_not_allowed. " +
			"Mounted only when the host has a message sender.",
		access: accessBrand, sender: true, body: reflect.TypeFor[ForgotPasswordRequest](), data: reflect.TypeFor[bool](), limit: limitResetIP,
		errors: map[int][]string{400: {"required", "invalid_email", "invalid_url", auth.CodeOriginNotAllowed}},
		serve:  func(h *Handler) http.HandlerFunc { return h.forgotPassword },
	},
	{
		pattern: "POST /api/v1/users/reset-password", id: "resetPassword", tag: tagAccount,
		summary: "Reset a password with a token",
		description: "Sets newPassword with the token of a reset link and ends every session of the user; the token works once. " +
			"A used, expired or unknown token is 400 invalid_token; a new password the rules refuse is a field error and leaves the token usable. " +
			"Mounted only when the host has a message sender.",
		access: accessBrand, sender: true, body: reflect.TypeFor[ResetPasswordRequest](), data: reflect.TypeFor[bool](), limit: limitResetIP,
		errors: map[int][]string{400: {"required", "too_short", "too_long", auth.CodeTooCommon, auth.CodeInvalidToken}, 503: {"unavailable"}},
		serve:  func(h *Handler) http.HandlerFunc { return h.resetPassword },
	},
	{
		pattern: "GET /api/v1/brands/by-url", id: "getBrandByURL", tag: tagAccount,
		summary:     "The brand of Brand-URL",
		description: "The brand's public face: id, url, name, status, defaultCurrency and whether sign-up is open.",
		access:      accessBrand, data: reflect.TypeFor[BrandResult](), etag: etagRead, limit: limitLists,
		serve: func(h *Handler) http.HandlerFunc { return h.brandByURL },
	},
	{
		pattern: "GET " + OpenAPIPath, id: "getOpenAPI", tag: tagMeta,
		summary:     "This document",
		description: "The OpenAPI 3.1 document of every route, as JSON (not wrapped in the envelope).",
		access:      accessPublic, raw: true, etag: etagRead, limit: limitLists,
		serve: func(h *Handler) http.HandlerFunc { return h.serveOpenAPI },
	},
}

// serves reports whether h mounts rt: the integration routes need an
// integrations service, the password-reset routes a message sender, the
// SMTP test route a mail service, the template routes a messages service,
// the webhook routes a webhooks service
// (and those of deliveries its queue).
func (h *Handler) serves(rt route) bool {
	return (!rt.integrations || h.svc.Integrations != nil) && (!rt.sender || h.svc.Auth.SendsMessages()) &&
		(!rt.mail || h.svc.Mail != nil) && (!rt.messages || h.svc.Messages != nil) &&
		(!rt.webhooks || h.svc.Webhooks != nil) && (!rt.queue || h.svc.Webhooks.Queued())
}

// mount registers every route of the table on h's mux, each behind the
// middleware its access and limit call for (the limit inside the brand and
// key checks, as rateLimited needs).
func (h *Handler) mount() {
	for _, rt := range routes {
		if !h.serves(rt) {
			continue
		}
		next := rt.serve(h)
		if rt.limit != 0 {
			next = h.rateLimited(rt.limit, next)
		}
		var handler http.Handler = next
		switch rt.access {
		case accessBrand:
			if rt.lastKnownBrand {
				handler = h.withLastKnownBrand(next)
			} else {
				handler = h.withBrand(next)
			}
		case accessAuthKey:
			handler = h.withAuthKey(next)
		}
		mux := h.mux
		if rt.premux {
			if h.premux == nil {
				h.premux = http.NewServeMux()
			}
			mux = h.premux
		}
		mux.Handle(rt.pattern, handler)
		h.patterns = append(h.patterns, rt.pattern)
	}
}
