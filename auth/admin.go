package auth

import (
	"context"
	"strings"
	"time"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/outbox"
)

// The administration of a brand's users (docs/administration.md): reads
// under users.read, changes under users.write and the rule of acting on
// another user ([CanActOn]). Every method takes the actor and works in
// the actor's brand only: a user of another brand is not found.

// UserPage is one page of a list of users.
type UserPage struct {
	// Items are the users of the page, never nil.
	Items []User
	// TotalItems is how many users the whole query selects (exact).
	TotalItems int
	// PageNumber is the page answered, from 0; PageSize the size used,
	// after the default and the clamp.
	PageNumber, PageSize int
}

// canRead refuses an actor without users.read.
func canRead(actor Principal) error {
	if !actor.Can(PermUsersRead) {
		return errAccessDenied("Reading the brand's users needs the users.read permission.")
	}
	return nil
}

// ListUsers returns the page of the users of actor's brand that q selects
// (see [UserQuery]), with the exact number of users it selects. It fails
// with KindForbidden (access_denied) without users.read, KindInvalid
// (one field error per bad parameter), and the store's errors.
func (s *Service) ListUsers(ctx context.Context, actor Principal, q UserQuery) (UserPage, error) {
	if err := canRead(actor); err != nil {
		return UserPage{}, err
	}
	f, err := q.filter()
	if err != nil {
		return UserPage{}, err
	}
	page := UserPage{Items: []User{}, PageNumber: q.PageNumber, PageSize: f.Limit}
	recs, total, err := s.store.ListUserPage(ctx, actor.BrandID, f)
	if err != nil {
		return UserPage{}, err
	}
	page.TotalItems = total
	for _, r := range recs {
		page.Items = append(page.Items, r.public())
	}
	return page, nil
}

// ReadUser returns the user userID of actor's brand. KindForbidden
// (access_denied) without users.read; [ErrUserNotFound] when no user of
// actor's brand has that ID.
func (s *Service) ReadUser(ctx context.Context, actor Principal, userID string) (User, error) {
	if err := canRead(actor); err != nil {
		return User{}, err
	}
	if !plausibleID(userID) {
		return User{}, ErrUserNotFound
	}
	r, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return User{}, err
	}
	if r.BrandID != actor.BrandID {
		return User{}, ErrUserNotFound
	}
	return r.public(), nil
}

// ReadUserByUsername returns the user of actor's brand whose username is
// username, compared as a login compares it ([FoldKey]). Errors as for
// [Service.ReadUser].
func (s *Service) ReadUserByUsername(ctx context.Context, actor Principal, username string) (User, error) {
	if err := canRead(actor); err != nil {
		return User{}, err
	}
	if strings.TrimSpace(username) == "" || len(username) > maxQueryText || matchesNothing(username) {
		return User{}, ErrUserNotFound
	}
	r, err := s.store.UserByUsername(ctx, actor.BrandID, FoldKey(username))
	if err != nil {
		return User{}, err
	}
	return r.public(), nil
}

// ReadUsers returns the users of actor's brand among ids, in the order of
// ids (an ID that names no such user, or named again, is left out).
// KindForbidden (access_denied) without users.read; KindInvalid (field
// ids, too_long) for more than MaxUserIDs IDs.
func (s *Service) ReadUsers(ctx context.Context, actor Principal, ids []string) ([]User, error) {
	if ids == nil {
		ids = []string{}
	}
	page, err := s.ListUsers(ctx, actor, UserQuery{IDs: ids, PageSize: MaxUserIDs})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]User, len(page.Items))
	for _, u := range page.Items {
		byID[u.ID] = u
	}
	out := []User{}
	for _, id := range ids {
		if u, ok := byID[strings.TrimSpace(id)]; ok {
			out = append(out, u)
			delete(byID, u.ID)
		}
	}
	return out, nil
}

// UpdateUserAs changes the profile of the user userID as actor (an
// administrator's PUT users/{id}): actor must be allowed to act on the
// user ([CanActOn], checked again in the write); its own profile it may
// change too. up.Username is required, as the client's PUT sends it. The
// fields and errors are those of [Service.UpdateUser], KindInvalid
// (username, required) without a username, and KindForbidden
// (access_denied) as [Service.UserToActOn] answers.
func (s *Service) UpdateUserAs(ctx context.Context, actor Principal, userID string, up UserUpdate) (User, error) {
	if _, err := s.UserToActOn(ctx, actor, userID); err != nil {
		return User{}, err
	}
	if up.Username == nil {
		return User{}, envelope.Invalid("The body is invalid.", envelope.Field("username", "required", "The username is required."))
	}
	return s.updateProfile(ctx, userID, up, func(r *UserRecord) error { return CanActOn(actor, r.User) })
}

// DeleteUser deletes the user userID as actor: its sessions, devices,
// single-use tokens, lookup keys and search words go with it, in one
// transaction, and nothing of its personal data is kept. actor must be
// allowed to act on the user ([CanActOn], checked again in the deletion)
// and is never the user itself (an administrator's own account is
// deleted by another). KindForbidden (access_denied) for either;
// [ErrUserNotFound]; the store's errors.
func (s *Service) DeleteUser(ctx context.Context, actor Principal, userID string) error {
	if _, err := s.UserToActOn(ctx, actor, userID); err != nil {
		return err
	}
	if !actor.System && actor.UserID == userID {
		return errAccessDenied("A user cannot delete its own account here: another administrator can.")
	}
	// The store writes out after check returns (as UpdateUser does): the
	// user.deleted event names the user by its ID only.
	now := s.now().UTC().Truncate(time.Microsecond)
	out := make([]outbox.Item, 1)
	var gone UserRecord
	_, err := s.store.DeleteUser(ctx, userID, func(r UserRecord) error {
		if err := CanActOn(actor, r.User); err != nil {
			return err
		}
		gone = UserRecord{User: User{ID: r.ID, BrandID: r.BrandID}}
		out[0] = userEvent(EventUserDeleted, gone, now, nil)
		return nil
	}, out...)
	s.invalidateUser(userID) // also on failure: a late error may follow the deletion
	if err != nil {
		return err
	}
	s.emitUser(ctx, EventUserDeleted, gone, now, nil)
	return nil
}

// UserStatusCounts are how many users of a brand hold each status.
type UserStatusCounts struct {
	Total     int `json:"total"`
	Active    int `json:"active"`
	Inactive  int `json:"inactive"`
	Locked    int `json:"locked"`
	Suspended int `json:"suspended"`
}

// CountUsers returns how many users of actor's brand hold each status.
// KindForbidden (access_denied) without users.read; the store's errors.
func (s *Service) CountUsers(ctx context.Context, actor Principal) (UserStatusCounts, error) {
	if err := canRead(actor); err != nil {
		return UserStatusCounts{}, err
	}
	m, err := s.store.CountUsersByStatus(ctx, actor.BrandID)
	if err != nil {
		return UserStatusCounts{}, err
	}
	c := UserStatusCounts{Active: m[StatusActive], Inactive: m[StatusInactive], Locked: m[StatusLocked], Suspended: m[StatusSuspended]}
	for _, n := range m {
		c.Total += n
	}
	return c, nil
}

// StatisticPoint is the number of users created in one period.
type StatisticPoint struct {
	// Date is the period: "2006-01-02" for a day, "2006-01" for a month.
	Date string `json:"date"`
	// Quantity is how many users were created in it.
	Quantity int `json:"quantity"`
}

// StatisticsQuery asks for the users created per period between two
// times, as jfw-js's statistics ask.
type StatisticsQuery struct {
	// StartDate and EndDate bound the range, both included, in the forms
	// of [UserQuery.CreatedDateFrom]; required.
	StartDate, EndDate string
	// TypeResponse is DATE (a point per day, the default) or MONTH (a
	// point per month), any case.
	TypeResponse string
}

// MaxStatisticPoints is the most points a statistics query may answer.
const MaxStatisticPoints = 1000

// UserStatistics returns how many users of actor's brand were created in
// each day (or month) of q's range, UTC, every period of the range
// included (zero when none). KindForbidden (access_denied) without
// users.read; KindInvalid for a missing or unreadable date, an end before
// the start, an unknown typeResponse, or more than MaxStatisticPoints
// periods (out_of_range).
func (s *Service) UserStatistics(ctx context.Context, actor Principal, q StatisticsQuery) ([]StatisticPoint, error) {
	if err := canRead(actor); err != nil {
		return nil, err
	}
	bounds, labels, err := q.periods()
	if err != nil {
		return nil, err
	}
	counts, err := s.store.CountUsersCreated(ctx, actor.BrandID, bounds)
	if err != nil {
		return nil, err
	}
	out := make([]StatisticPoint, len(labels))
	for i, l := range labels {
		out[i] = StatisticPoint{Date: l, Quantity: counts[i]}
	}
	return out, nil
}

// periods validates q and returns the bounds of its periods (the range's
// start, each period's start after it, the range's exclusive end) and
// each period's label.
func (q StatisticsQuery) periods() ([]time.Time, []string, error) {
	var v envelope.Validation
	monthly := false
	switch strings.ToUpper(strings.TrimSpace(q.TypeResponse)) {
	case "", "DATE":
	case "MONTH":
		monthly = true
	default:
		v.Add("typeResponse", "invalid_enum", "typeResponse must be DATE or MONTH.")
	}
	start, okStart := parseQueryTime(&v, "startDate", &q.StartDate, false)
	end, okEnd := parseQueryTime(&v, "endDate", &q.EndDate, true)
	for _, p := range []struct {
		name string
		ok   bool
	}{{"startDate", okStart}, {"endDate", okEnd}} {
		if !p.ok && !v.Has(p.name) {
			v.Add(p.name, "required", p.name+" is required.")
		}
	}
	if okStart && okEnd && !end.After(start) {
		v.Add("endDate", "out_of_range", "endDate must not be before startDate.")
	}
	if err := v.Err(); err != nil {
		return nil, nil, err
	}
	step, layout := func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }, time.DateOnly
	period := time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, time.UTC)
	if monthly {
		step, layout = func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }, "2006-01"
		period = time.Date(start.Year(), start.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	bounds, labels := []time.Time{start}, []string{}
	for ; period.Before(end); period = step(period) {
		if len(labels) == MaxStatisticPoints {
			return nil, nil, envelope.Invalid("The range is too long.", envelope.Field("endDate", "out_of_range",
				"The range may hold at most 1000 periods."))
		}
		labels = append(labels, period.Format(layout))
		next := step(period)
		if next.After(end) {
			next = end
		}
		bounds = append(bounds, next)
	}
	return bounds, labels, nil
}
