package httpadapter

import (
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/refdata"
)

// The administration of a brand's users (docs/administration.md), in the
// paths and shapes of jfw-js's src/features/user: reads under users.read,
// changes under users.write and the rule of acting on another user
// (auth.CanActOn). Every rule is auth's; these handlers decode and encode.

// UserPage is the data of GET /api/v1/users: a page of users, as jfw-js's
// HttpResponseList reads it.
type UserPage struct {
	Items []UserResult `json:"items"`
	// TotalItems is how many users the whole query selects (exact).
	TotalItems int `json:"totalItems"`
	PageNumber int `json:"pageNumber"`
	// PageSize is the size used, after the default and the clamp.
	PageSize int `json:"pageSize"`
}

// UpdateUserRequest is the body of PUT /api/v1/users/{id}: the fields of
// jfw-js's IUpdateUserParams that a user has here (languageCode,
// timeZoneId, avatar and the others are ignored). username is required;
// another field not sent, or null, keeps its value, and "" clears it.
type UpdateUserRequest struct {
	Username     *string `json:"username"`
	EmailAddress *string `json:"emailAddress"`
	PhoneNumber  *string `json:"phoneNumber"`
	FirstName    *string `json:"firstName"`
	LastName     *string `json:"lastName"`
	NickName     *string `json:"nickName"`
}

// userListParams are the query parameters of GET /api/v1/users (names in
// any case), as the OpenAPI document lists them.
var userListParams = []refdata.Param{
	{Name: "ids", Type: reflect.TypeFor[string](), Doc: "Comma-separated user ids (or ids[0]=...&ids[1]=...), at most 100: those users only."},
	{Name: "username", Type: reflect.TypeFor[string](), Doc: "The user with this username, compared as a login compares it (case and width ignored)."},
	{Name: "emailAddress", Type: reflect.TypeFor[string](), Doc: "The user with this email address, compared as a login compares it."},
	{Name: "status", Type: reflect.TypeFor[string](), Doc: "Active, Inactive, Locked or Suspended, any case."},
	{Name: "createdDateFrom", Type: reflect.TypeFor[string](), Doc: `Users created at or after: RFC 3339, "2006-01-02 15:04:05" or "2006-01-02" (UTC).`},
	{Name: "createdDateTo", Type: reflect.TypeFor[string](), Doc: "Users created at or before (a date alone takes its whole day); as createdDateFrom."},
	{Name: "keywords", Type: reflect.TypeFor[string](), Doc: "Free text: every word must be the start of a word of the username, email address, " +
		"first, last or nick name, case and accents ignored (at most 16 words)."},
	{Name: "roleId", Type: reflect.TypeFor[string](), Doc: "Not yet: roles are not there, so no user holds one and a roleId selects no user."},
	{Name: "sortDataField", Type: reflect.TypeFor[string](), Doc: "id (default), createdDate, username or status, any case; " +
		"ties break by creation. jfw-js's code is refused (users have no code here)."},
	{Name: "sortOrder", Type: reflect.TypeFor[string](), Doc: "ASC (default) or DESC, any case; DESC reverses ties too."},
	{Name: "pageNumber", Type: reflect.TypeFor[int32](), Doc: "From 0 (default 0)."},
	{Name: "pageSize", Type: reflect.TypeFor[int32](), Doc: "1 to 1000 (0 or none: 200; more: 1000, as pageSize answers)."},
}

// statisticsParams are the query parameters of GET /api/v1/users/statistics.
var statisticsParams = []refdata.Param{
	{Name: "startDate", Type: reflect.TypeFor[string](), Doc: `Required: "2006-01-02 15:04:05" (as jfw-js sends it), RFC 3339 or "2006-01-02", UTC.`},
	{Name: "endDate", Type: reflect.TypeFor[string](), Doc: "Required, included (a date alone takes its whole day); as startDate."},
	{Name: "typeResponse", Type: reflect.TypeFor[string](), Doc: "DATE (default: a point per day) or MONTH (a point per month)."},
}

// idsParam returns the IDs a query names: ids[0]=...&ids[1]=... (jfw-js's
// indexed form), in index order, or else ids (comma-separated); nil when
// neither is given.
func (q query) idsParam() []string {
	type indexed struct {
		i  int
		id string
	}
	var found []indexed
	for k, v := range q.vals {
		if rest, ok := strings.CutPrefix(k, "ids["); ok && strings.HasSuffix(rest, "]") {
			i, err := strconv.Atoi(strings.TrimSuffix(rest, "]"))
			if err == nil && i >= 0 {
				found = append(found, indexed{i, v})
			}
		}
	}
	if len(found) > 0 {
		slices.SortFunc(found, func(a, b indexed) int { return a.i - b.i })
		out := make([]string, len(found))
		for i, f := range found {
			out[i] = f.id
		}
		return out
	}
	if v, ok := q.get("ids"); ok {
		return strings.Split(v, ",")
	}
	return nil
}

// intParam reads the integer parameter name into dst: invalid_type when it
// is not an integer.
func (q query) intParam(v *envelope.Validation, name string, dst *int) {
	s, ok := q.get(name)
	if !ok {
		return
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	switch {
	case errors.Is(err, strconv.ErrRange):
		v.Add(name, "out_of_range", name+" must be between 0 and 2147483647.")
		return
	case err != nil:
		v.Add(name, "invalid_type", name+" must be an integer.")
		return
	}
	*dst = int(n)
}

// userQuery reads the query of GET /api/v1/users.
func userQuery(r *http.Request) (auth.UserQuery, error) {
	q := newQuery(r)
	uq := auth.UserQuery{IDs: q.idsParam()}
	for name, dst := range map[string]**string{
		"username": &uq.Username, "emailAddress": &uq.EmailAddress, "status": &uq.Status,
		"createdDateFrom": &uq.CreatedDateFrom, "createdDateTo": &uq.CreatedDateTo, "keywords": &uq.Keywords,
		"roleId": &uq.RoleID, "sortDataField": &uq.SortDataField, "sortOrder": &uq.SortOrder,
	} {
		if s, ok := q.get(name); ok {
			*dst = &s
		}
	}
	var v envelope.Validation
	q.intParam(&v, "pageNumber", &uq.PageNumber)
	q.intParam(&v, "pageSize", &uq.PageSize)
	return uq, v.Err()
}

// usersOf returns users in the answer's shape.
func usersOf(users []auth.User) []UserResult {
	out := make([]UserResult, len(users))
	for i, u := range users {
		out[i] = userResult(u)
	}
	return out
}

// listUsers answers GET /api/v1/users: a page of the brand's users.
func (h *Handler) listUsers(w http.ResponseWriter, r *http.Request) {
	q, err := userQuery(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	p, err := h.svc.Auth.ListUsers(ctx, principalFrom(ctx), q)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, UserPage{Items: usersOf(p.Items), TotalItems: p.TotalItems, PageNumber: p.PageNumber, PageSize: p.PageSize})
}

// getUser answers GET /api/v1/users/{id}.
func (h *Handler) getUser(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u, err := h.svc.Auth.ReadUser(ctx, principalFrom(ctx), r.PathValue("id"))
	h.answerUser(w, r, u, err)
}

// getUserByUsername answers GET /api/v1/users/by-username/{username}.
func (h *Handler) getUserByUsername(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u, err := h.svc.Auth.ReadUserByUsername(ctx, principalFrom(ctx), r.PathValue("username"))
	h.answerUser(w, r, u, err)
}

// answerUser answers r with u, or err.
func (h *Handler) answerUser(w http.ResponseWriter, r *http.Request, u auth.User, err error) {
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, userResult(u))
}

// getUsersByIDs answers GET /api/v1/users/by-list-id: the users of the
// ids asked, in their order, as a bare array.
func (h *Handler) getUsersByIDs(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	users, err := h.svc.Auth.ReadUsers(ctx, principalFrom(ctx), newQuery(r).idsParam())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, usersOf(users))
}

// updateUser answers PUT /api/v1/users/{id} with the user as changed.
func (h *Handler) updateUser(w http.ResponseWriter, r *http.Request) {
	var body UpdateUserRequest
	if err := decodeJSON(w, r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	u, err := h.svc.Auth.UpdateUserAs(ctx, principalFrom(ctx), r.PathValue("id"), auth.UserUpdate{
		Username: body.Username, EmailAddress: body.EmailAddress, PhoneNumber: body.PhoneNumber,
		FirstName: body.FirstName, LastName: body.LastName, NickName: body.NickName,
	})
	h.answerUser(w, r, u, err)
}

// deleteUser answers DELETE /api/v1/users/{id}: data true.
func (h *Handler) deleteUser(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := h.svc.Auth.DeleteUser(ctx, principalFrom(ctx), r.PathValue("id")); err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, true)
}

// changeUserStatus returns the handler of POST /api/v1/users/{id}/<change>:
// data true, as jfw-js reads it.
func (h *Handler) changeUserStatus(change auth.StatusChange) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if _, err := h.svc.Auth.ChangeUserStatus(ctx, principalFrom(ctx), r.PathValue("id"), change); err != nil {
			h.fail(w, r, err)
			return
		}
		h.okNoStore(w, r, true)
	}
}

// userStatistics answers GET /api/v1/users/statistics: new users per day
// (or month), [{date, quantity}] as jfw-js's IStatisticCommon.
func (h *Handler) userStatistics(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	var sq auth.StatisticsQuery
	sq.StartDate, _ = q.get("startDate")
	sq.EndDate, _ = q.get("endDate")
	sq.TypeResponse, _ = q.get("typeResponse")
	ctx := r.Context()
	points, err := h.svc.Auth.UserStatistics(ctx, principalFrom(ctx), sq)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, points)
}

// userCounts answers GET /api/v1/users/statistics/status: the brand's
// users counted by status.
func (h *Handler) userCounts(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	c, err := h.svc.Auth.CountUsers(ctx, principalFrom(ctx))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, c)
}

// statusRoute returns the route of POST /api/v1/users/{id}/<change>.
func statusRoute(change auth.StatusChange, id, summary, meaning string) route {
	return route{
		pattern: "POST /api/v1/users/{id}/" + string(change), id: id, tag: tagAdmin,
		summary: summary,
		description: meaning + " Needs users.write and every permission the user holds; never on the caller itself " +
			"(403 access_denied). A user already in the status it leads to is left as it is. Answers data: true.",
		access: accessAuthKey, data: reflect.TypeFor[bool](), limit: limitUpdates,
		errors: map[int][]string{403: {auth.CodeAccessDenied}, 404: {"not_found"}, 409: {auth.CodeStatusConflict}},
		serve:  func(h *Handler) http.HandlerFunc { return h.changeUserStatus(change) },
	}
}

// userAdminRoutes are the routes of the administration of users
// (docs/http-api.md, "Administration of users").
var userAdminRoutes = []route{
	{
		pattern: "GET /api/v1/users", id: "getUsers", tag: tagAdmin,
		summary: "List users",
		description: "A page of the brand's users, filtered and sorted, with the exact totalItems; needs users.read. " +
			"Filters combine with AND.",
		access: accessAuthKey, query: userListParams, data: reflect.TypeFor[UserPage](), limit: limitLists,
		errors: map[int][]string{
			400: {"invalid_enum", "invalid_format", "invalid_type", "out_of_range", "too_long"},
			403: {auth.CodeAccessDenied},
		},
		serve: func(h *Handler) http.HandlerFunc { return h.listUsers },
	},
	{
		pattern: "GET /api/v1/users/by-list-id", id: "getUsersByListIds", tag: tagAdmin,
		summary: "Users by their ids",
		description: "The brand's users among ids (ids[0]=...&ids[1]=..., as jfw-js sends them, or ids=a,b), in the order asked, " +
			"as a bare array; an id of no such user is left out. At most 100 ids. Needs users.read.",
		access: accessAuthKey, query: []refdata.Param{userListParams[0]}, data: reflect.TypeFor[[]UserResult](),
		errors: map[int][]string{400: {"too_long"}, 403: {auth.CodeAccessDenied}},
		serve:  func(h *Handler) http.HandlerFunc { return h.getUsersByIDs },
	},
	{
		pattern: "GET /api/v1/users/statistics", id: "statisticUsers", tag: tagAdmin,
		summary: "New users per day or month",
		description: "How many users of the brand were created in each day (typeResponse DATE) or month (MONTH) from startDate " +
			"to endDate, UTC, every period listed (0 when none): [{date, quantity}], date 2006-01-02 or 2006-01. " +
			"At most 1000 periods. Needs users.read.",
		access: accessAuthKey, query: statisticsParams, data: reflect.TypeFor[[]auth.StatisticPoint](),
		errors: map[int][]string{400: {"required", "invalid_format", "invalid_enum", "out_of_range", "too_long"}, 403: {auth.CodeAccessDenied}},
		serve:  func(h *Handler) http.HandlerFunc { return h.userStatistics },
	},
	{
		pattern: "GET /api/v1/users/statistics/status", id: "countUsersByStatus", tag: tagAdmin,
		summary:     "Users by status",
		description: "How many users the brand has in all and in each status. Needs users.read.",
		access:      accessAuthKey, data: reflect.TypeFor[auth.UserStatusCounts](),
		errors: map[int][]string{403: {auth.CodeAccessDenied}},
		serve:  func(h *Handler) http.HandlerFunc { return h.userCounts },
	},
	{
		pattern: "GET /api/v1/users/by-username/{username}", id: "getUserByUsername", tag: tagAdmin,
		summary:     "A user by username",
		description: "The brand's user whose username this is, compared as a login compares it. Needs users.read.",
		access:      accessAuthKey, data: reflect.TypeFor[UserResult](), premux: true,
		errors: map[int][]string{403: {auth.CodeAccessDenied}, 404: {"not_found"}},
		serve:  func(h *Handler) http.HandlerFunc { return h.getUserByUsername },
	},
	{
		pattern: "GET /api/v1/users/{id}", id: "getUser", tag: tagAdmin,
		summary:     "A user",
		description: "The brand's user with this id. Needs users.read.",
		access:      accessAuthKey, data: reflect.TypeFor[UserResult](),
		errors: map[int][]string{403: {auth.CodeAccessDenied}, 404: {"not_found"}},
		serve:  func(h *Handler) http.HandlerFunc { return h.getUser },
	},
	{
		pattern: "PUT /api/v1/users/{id}", id: "updateUser", tag: tagAdmin,
		summary: "Update a user",
		description: "Changes the user's username (required), emailAddress, phoneNumber, firstName, lastName and nickName " +
			"(a field not sent or null keeps its value; \"\" clears it) and answers the user. Needs users.write and every " +
			"permission the user holds; the caller may change its own profile. A changed address ends the user's reset tokens.",
		access: accessAuthKey, body: reflect.TypeFor[UpdateUserRequest](), data: reflect.TypeFor[UserResult](), limit: limitUpdates,
		errors: map[int][]string{
			400: {"required", "too_long", "invalid_format", "invalid_email", "invalid_phone", auth.CodeNotOwnAddress, "invalid_type"},
			403: {auth.CodeAccessDenied},
			404: {"not_found"},
			409: {"user_exists"},
		},
		serve: func(h *Handler) http.HandlerFunc { return h.updateUser },
	},
	{
		pattern: "DELETE /api/v1/users/{id}", id: "deleteUser", tag: tagAdmin,
		summary: "Delete a user",
		description: "Deletes the user and all that is only theirs, at once and on every instance: sessions (key pairs), devices, " +
			"reset tokens; nothing of their personal data is kept. Needs users.write and every permission the user holds; " +
			"never the caller itself (403 access_denied). Answers data: true.",
		access: accessAuthKey, data: reflect.TypeFor[bool](), limit: limitUpdates,
		errors: map[int][]string{403: {auth.CodeAccessDenied}, 404: {"not_found"}},
		serve:  func(h *Handler) http.HandlerFunc { return h.deleteUser },
	},
	statusRoute(auth.Activate, "activateUser", "Activate a user",
		"Inactive to Active: the user signs in again, and its unexpired sessions work again."),
	statusRoute(auth.Deactivate, "deactivateUser", "Deactivate a user",
		"Active to Inactive: sign-in refused (403 user_inactive), sessions refused until activated, reset tokens ended."),
	statusRoute(auth.Lock, "lockUser", "Lock a user",
		"Active to Locked: sign-in refused (403 user_locked), every session ended for good, reset tokens ended."),
	statusRoute(auth.Unlock, "unlockUser", "Unlock a user",
		"Locked to Active: the user signs in with its current password (its old sessions stay ended)."),
	statusRoute(auth.Suspend, "suspendUser", "Suspend a user",
		"Active to Suspended: sign-in refused (403 user_suspended), sessions refused until unsuspended, reset tokens ended."),
	statusRoute(auth.Unsuspend, "unsuspendUser", "Unsuspend a user",
		"Suspended to Active: the user signs in again, and its unexpired sessions work again."),
}
