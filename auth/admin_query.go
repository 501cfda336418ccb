package auth

import (
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/internal/textfold"
)

// Limits of a list of users.
const (
	// DefaultUserPageSize is the page size of a list of users when none is
	// asked for; MaxUserPageSize the largest (a larger one is clamped).
	DefaultUserPageSize = 200
	MaxUserPageSize     = 1000
	// MaxUserIDs is the most IDs a query of users may name.
	MaxUserIDs = 100
	// maxUserTerms is the most distinct words a Keywords filter may hold.
	maxUserTerms = 16
	// maxQueryText bounds a text parameter, in bytes.
	maxQueryText = 200
)

// UserQuery is a query of a brand's users ([Service.ListUsers]), as a
// client writes it: every field optional, text as sent. Filters combine
// with AND.
type UserQuery struct {
	// IDs keeps the users with these IDs (at most MaxUserIDs).
	IDs []string
	// Username and EmailAddress keep the user whose username (or address)
	// is this one, compared as logins compare them ([FoldKey]).
	Username, EmailAddress *string
	// Status keeps the users of this status (any case).
	Status *string
	// CreatedDateFrom and CreatedDateTo keep the users created in that
	// range, both ends included: RFC 3339, "2006-01-02 15:04:05" or
	// "2006-01-02" (UTC); a date alone as CreatedDateTo takes its whole day.
	CreatedDateFrom, CreatedDateTo *string
	// Keywords keeps the users of whom every word of it starts a word of
	// the username, email address, first, last or nick name, case and
	// accents ignored.
	Keywords *string
	// RoleID keeps the users holding that role. Roles are not there yet:
	// no user holds one, so a RoleID keeps no user.
	RoleID *string
	// SortDataField is id (default), createdDate, username or status, any
	// case; SortOrder ASC (default) or DESC.
	SortDataField, SortOrder *string
	// PageNumber counts from 0; PageSize 0 means DefaultUserPageSize.
	PageNumber, PageSize int
}

// userSorts are the sort fields a query names, in the order a refusal
// lists them.
var userSorts = []UserSort{UserSortID, UserSortCreated, UserSortUsername, UserSortStatus}

// filter validates q and returns the store's filter: KindInvalid with one
// field error per bad parameter.
func (q UserQuery) filter() (UserFilter, error) {
	var v envelope.Validation
	var f UserFilter
	q.paging(&v, &f)
	f.Sort = userSort(&v, q.SortDataField)
	f.Desc = sortOrderDesc(&v, q.SortOrder)
	if q.IDs != nil {
		if len(q.IDs) > MaxUserIDs {
			v.Add("ids", "too_long", "At most 100 ids may be given.")
		}
		f.IDs = []string{}
		for _, id := range q.IDs {
			if id = strings.TrimSpace(id); plausibleID(id) {
				f.IDs = append(f.IDs, id)
			}
		}
		f.Nothing = len(f.IDs) == 0
	}
	for _, k := range []struct {
		name string
		s    *string
		key  *string
	}{{"username", q.Username, &f.UsernameKey}, {"emailAddress", q.EmailAddress, &f.EmailKey}} {
		if s, ok := queryText(&v, k.name, k.s); ok {
			*k.key = FoldKey(s)
			f.Nothing = f.Nothing || matchesNothing(s)
		}
	}
	if s, ok := queryText(&v, "status", q.Status); ok {
		st, known := parseUserStatus(s)
		if !known {
			v.Add("status", "invalid_enum", "status must be one of: Active, Inactive, Locked, Suspended.")
		}
		f.Status = st
	}
	f.CreatedFrom, _ = parseQueryTime(&v, "createdDateFrom", q.CreatedDateFrom, false)
	f.CreatedBefore, _ = parseQueryTime(&v, "createdDateTo", q.CreatedDateTo, true)
	if s, ok := queryText(&v, "keywords", q.Keywords); ok {
		f.Terms = distinctWords(textfold.Words(strings.ToValidUTF8(s, "\uFFFD")))
		if len(f.Terms) > maxUserTerms {
			v.Add("keywords", "too_long", "keywords may hold at most 16 distinct words.")
		}
		f.Nothing = f.Nothing || len(f.Terms) == 0
	}
	if _, ok := queryText(&v, "roleId", q.RoleID); ok {
		f.Nothing = true // no roles yet: no user holds one
	}
	return f, v.Err()
}

// paging validates the page of q into f.
func (q UserQuery) paging(v *envelope.Validation, f *UserFilter) {
	size := q.PageSize
	switch {
	case size < 0:
		v.Add("pageSize", "out_of_range", "pageSize must be between 1 and 1000 (0 means the default, 200).")
	case size == 0:
		size = DefaultUserPageSize
	case size > MaxUserPageSize:
		size = MaxUserPageSize
	}
	if q.PageNumber < 0 || q.PageNumber > math.MaxInt32 {
		v.Add("pageNumber", "out_of_range", "pageNumber must be between 0 and 2147483647.")
	}
	f.Limit = max(size, 1)
	if q.PageNumber > 0 && q.PageNumber <= math.MaxInt32 {
		f.Offset = q.PageNumber * f.Limit
	}
}

// userSort resolves SortDataField: id when absent.
func userSort(v *envelope.Validation, name *string) UserSort {
	if name == nil || strings.TrimSpace(*name) == "" {
		return UserSortID
	}
	for _, s := range userSorts {
		if strings.EqualFold(strings.TrimSpace(*name), string(s)) {
			return s
		}
	}
	v.Add("sortDataField", "invalid_enum", "sortDataField must be one of: id, createdDate, username, status.")
	return UserSortID
}

// sortOrderDesc resolves SortOrder: ASC or DESC (ascending, descending),
// any case; ascending when absent.
func sortOrderDesc(v *envelope.Validation, order *string) bool {
	if order == nil {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(*order)) {
	case "", "asc", "ascending":
		return false
	case "desc", "descending":
		return true
	}
	v.Add("sortOrder", "invalid_enum", "sortOrder must be ASC or DESC.")
	return false
}

// queryText returns a text parameter trimmed, and whether it is given
// (not nil, not blank): too_long past 200 bytes. A value that is not
// UTF-8 or holds a NUL matches nothing, as the reference lists' filters
// do: it is answered as a value no user has (U+FFFD for the bad bytes,
// the NUL dropped from a key by matchesNothing).
func queryText(v *envelope.Validation, name string, s *string) (string, bool) {
	if s == nil || strings.TrimSpace(*s) == "" {
		return "", false
	}
	t := strings.TrimSpace(*s)
	if len(t) > maxQueryText {
		v.Add(name, "too_long", name+" must be at most 200 bytes long.")
		return "", false
	}
	return t, true
}

// matchesNothing reports whether a text filter's value can name no user:
// bytes that are not UTF-8, or a NUL (which no stored text holds, and
// PostgreSQL refuses).
func matchesNothing(s string) bool {
	return !utf8.ValidString(s) || strings.ContainsRune(s, 0)
}

// distinctWords returns ws without repeats, in order.
func distinctWords(ws []string) []string {
	out := ws[:0:0]
	for _, w := range ws {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// The layouts a time parameter is read in (UTC unless it says otherwise).
const (
	layoutDateTime = "2006-01-02 15:04:05"
	layoutDate     = time.DateOnly
)

// parseQueryTime reads the time parameter name: RFC 3339, "2006-01-02
// 15:04:05" or "2006-01-02", in UTC unless it carries an offset. With
// end, the result is the exclusive end of the range the value closes:
// the next day for a date alone, the next microsecond (the stores'
// precision) otherwise. It reports whether the parameter was given;
// invalid_format when it cannot be read.
func parseQueryTime(v *envelope.Validation, name string, s *string, end bool) (time.Time, bool) {
	t, ok := queryText(v, name, s)
	if !ok {
		return time.Time{}, false
	}
	t = strings.ToValidUTF8(t, "\uFFFD")
	if d, err := time.ParseInLocation(layoutDate, t, time.UTC); err == nil {
		if end {
			d = d.AddDate(0, 0, 1)
		}
		return d, true
	}
	for _, layout := range []string{time.RFC3339Nano, layoutDateTime, "2006-01-02T15:04:05"} {
		if at, err := time.ParseInLocation(layout, t, time.UTC); err == nil {
			at = at.UTC().Truncate(time.Microsecond)
			if end {
				at = at.Add(time.Microsecond)
			}
			return at, true
		}
	}
	v.Add(name, "invalid_format", name+` must be a date and time: RFC 3339, "2006-01-02 15:04:05" or "2006-01-02".`)
	return time.Time{}, false
}
