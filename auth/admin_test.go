package auth_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// adminAct is one act on another user, as a route of
// docs/administration.md makes it: before sets the target up, act acts.
type adminAct struct {
	name   string
	before auth.Status // the target's status before (Active when empty)
	act    func(ctx context.Context, e *env, actor auth.Principal, id string) error
}

// adminActs are every act on a user that the administration routes make.
var adminActs = []adminAct{
	{"update", "", func(ctx context.Context, e *env, a auth.Principal, id string) error {
		u, err := e.svc.User(ctx, id)
		if err != nil {
			return err
		}
		name := "renamed"
		_, err = e.svc.UpdateUserAs(ctx, a, id, auth.UserUpdate{Username: &u.Username, NickName: &name})
		return err
	}},
	{"delete", "", func(ctx context.Context, e *env, a auth.Principal, id string) error {
		return e.svc.DeleteUser(ctx, a, id)
	}},
	statusAct(auth.Activate, auth.StatusInactive),
	statusAct(auth.Deactivate, auth.StatusActive),
	statusAct(auth.Lock, auth.StatusActive),
	statusAct(auth.Unlock, auth.StatusLocked),
	statusAct(auth.Suspend, auth.StatusActive),
	statusAct(auth.Unsuspend, auth.StatusSuspended),
}

func statusAct(c auth.StatusChange, before auth.Status) adminAct {
	return adminAct{string(c), before, func(ctx context.Context, e *env, a auth.Principal, id string) error {
		_, err := e.svc.ChangeUserStatus(ctx, a, id, c)
		return err
	}}
}

// TestAdministrationNoEscalation tries each way round the rule of acting
// on another user, on every act of the administration: an actor acts only
// with users.write and every permission the target holds, only in its
// brand, and never changes its own status nor deletes itself.
func TestAdministrationNoEscalation(t *testing.T) {
	t.Parallel()
	const host auth.Permission = "orders.refund"
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		const ok, denied, notFound = "", auth.CodeAccessDenied, "not_found"
		cases := []struct {
			name          string
			actor, target []auth.Permission
			otherBrand    bool
			want          string
		}{
			{"writer on a plain user", []auth.Permission{auth.PermUsersWrite}, nil, false, ok},
			{"writer on an equal", []auth.Permission{auth.PermUsersWrite}, []auth.Permission{auth.PermUsersWrite}, false, ok},
			{"writer on a * admin", []auth.Permission{auth.PermUsersWrite}, []auth.Permission{auth.PermAll}, false, denied},
			{"writer on a holder of more", []auth.Permission{auth.PermUsersWrite}, []auth.Permission{auth.PermAnalyticsWrite}, false, denied},
			{"writer on a host permission", []auth.Permission{auth.PermUsersWrite}, []auth.Permission{host}, false, denied},
			{"writer with every of the target's", []auth.Permission{auth.PermUsersWrite, host}, []auth.Permission{host}, false, ok},
			{"reader only", []auth.Permission{auth.PermUsersRead}, nil, false, denied},
			{"no permission", nil, nil, false, denied},
			{"* on a * admin", []auth.Permission{auth.PermAll}, []auth.Permission{auth.PermAll}, false, ok},
			{"* on another brand's user", []auth.Permission{auth.PermAll}, nil, true, notFound},
			{"writer on another brand's user", []auth.Permission{auth.PermUsersWrite}, nil, true, notFound},
		}
		n := 0
		for _, act := range adminActs {
			for _, tc := range cases {
				n++
				actorName, targetName := "actor"+itoa(n), "target"+itoa(n)
				_, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: actorName, Password: "actor password", Permissions: tc.actor})
				require.NoError(t, err)
				brandID := e.brand.ID
				if tc.otherBrand {
					brandID = e.other.ID
				}
				target, err := e.svc.CreateUser(ctx, brandID, auth.NewUser{Username: targetName, Password: "target password", Permissions: tc.target})
				require.NoError(t, err)
				if act.before != "" {
					_, err = e.svc.SetUserStatus(ctx, target.ID, act.before)
					require.NoError(t, err)
				}
				err = act.act(ctx, e, login(t, e, actorName, "actor password"), target.ID)
				if tc.want == ok {
					assert.NoError(t, err, "%s: %s", act.name, tc.name)
					continue
				}
				assert.Equal(t, tc.want, envelope.CodeOf(err), "%s: %s", act.name, tc.name)
				after, err := e.svc.User(ctx, target.ID)
				require.NoError(t, err, "%s: %s: a refused act leaves the user", act.name, tc.name)
				assert.Equal(t, statusOr(act.before), after.Status, "%s: %s", act.name, tc.name)
				assert.Empty(t, after.NickName, "%s: %s", act.name, tc.name)
			}
		}
	})
}

// TestAdministrationSelf: a status change and a deletion of oneself are
// refused, even for a * admin; a profile change of oneself is not.
func TestAdministrationSelf(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		admin := login(t, e, "admin", adminPassword)
		for _, act := range adminActs {
			if act.before != "" && act.before != auth.StatusActive {
				continue // the admin is active: its own login shows it
			}
			err := act.act(ctx, e, admin, e.admin.ID)
			if act.name == "update" {
				assert.NoError(t, err, "its own profile")
				continue
			}
			assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err), act.name)
		}
		for _, c := range []auth.StatusChange{auth.Activate, auth.Unlock, auth.Unsuspend} {
			_, err := e.svc.ChangeUserStatus(ctx, admin, e.admin.ID, c)
			assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err), c)
		}
		u, err := e.svc.User(ctx, e.admin.ID)
		require.NoError(t, err)
		assert.Equal(t, auth.StatusActive, u.Status)
	})
}

func statusOr(st auth.Status) auth.Status {
	if st == "" {
		return auth.StatusActive
	}
	return st
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestStatusChanges checks each change from each status: the status it
// leaves, or status_conflict; and what a status refuses at sign-in.
func TestStatusChanges(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		admin := login(t, e, "admin", adminPassword)
		const conflict = auth.CodeStatusConflict
		want := map[auth.StatusChange]map[auth.Status]string{
			auth.Activate:   {auth.StatusActive: "Active", auth.StatusInactive: "Active", auth.StatusLocked: conflict, auth.StatusSuspended: conflict},
			auth.Deactivate: {auth.StatusActive: "Inactive", auth.StatusInactive: "Inactive", auth.StatusLocked: conflict, auth.StatusSuspended: conflict},
			auth.Lock:       {auth.StatusActive: "Locked", auth.StatusInactive: conflict, auth.StatusLocked: "Locked", auth.StatusSuspended: conflict},
			auth.Unlock:     {auth.StatusActive: "Active", auth.StatusInactive: conflict, auth.StatusLocked: "Active", auth.StatusSuspended: conflict},
			auth.Suspend:    {auth.StatusActive: "Suspended", auth.StatusInactive: conflict, auth.StatusLocked: conflict, auth.StatusSuspended: "Suspended"},
			auth.Unsuspend:  {auth.StatusActive: "Active", auth.StatusInactive: conflict, auth.StatusLocked: conflict, auth.StatusSuspended: "Active"},
		}
		n := 0
		for change, from := range want {
			for st, result := range from {
				n++
				u, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: "s" + itoa(n), Password: "status password"})
				require.NoError(t, err)
				_, err = e.svc.SetUserStatus(ctx, u.ID, st)
				require.NoError(t, err)
				got, err := e.svc.ChangeUserStatus(ctx, admin, u.ID, change)
				if result == conflict {
					assert.Equal(t, conflict, envelope.CodeOf(err), "%s from %s", change, st)
					assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
					continue
				}
				require.NoError(t, err, "%s from %s", change, st)
				assert.Equal(t, auth.Status(result), got.Status, "%s from %s", change, st)
			}
		}
		_, err := e.svc.ChangeUserStatus(ctx, admin, e.viewer.ID, "promote")
		assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err))
	})
}

// TestStatusesAtSignIn: each status refuses a sign-in with its code after
// a correct password; Locked ends the sessions for good, Suspended and
// Inactive keep them dormant until the user is Active again.
func TestStatusesAtSignIn(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		admin := login(t, e, "admin", adminPassword)
		for _, tc := range []struct {
			change, undo auth.StatusChange
			code         string
			keysReturn   bool
		}{
			{auth.Deactivate, auth.Activate, auth.CodeUserInactive, true},
			{auth.Suspend, auth.Unsuspend, auth.CodeUserSuspended, true},
			{auth.Lock, auth.Unlock, auth.CodeUserLocked, false},
		} {
			name := "at" + string(tc.change)
			u, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: name, Password: "sign-in password"})
			require.NoError(t, err)
			s, err := e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: name, Password: "sign-in password"})
			require.NoError(t, err)
			_, err = e.svc.ChangeUserStatus(ctx, admin, u.ID, tc.change)
			require.NoError(t, err)
			_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: name, Password: "sign-in password"})
			assert.Equal(t, tc.code, envelope.CodeOf(err), tc.change)
			_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: name, Password: "wrong password"})
			assert.Equal(t, auth.CodeInvalidCredentials, envelope.CodeOf(err), "a wrong password tells nothing of the status")
			_, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey)
			assert.Equal(t, auth.CodeUnauthenticated, envelope.CodeOf(err), "%s: keys refused", tc.change)
			_, err = e.svc.ChangeUserStatus(ctx, admin, u.ID, tc.undo)
			require.NoError(t, err)
			_, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey)
			assert.Equal(t, tc.keysReturn, err == nil, "%s then %s: the old key works again: %v", tc.change, tc.undo, err)
			_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: name, Password: "sign-in password"})
			assert.NoError(t, err, "%s undone: signs in with its password", tc.change)
		}
	})
}

// TestListUsers checks the list's rules in-process: users.read, the
// brand, the filters as a client writes them, and the refusals.
func TestListUsers(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		for i, n := range []struct{ user, first, last, email string }{
			{"jose", "José", "Álvarez", "jose@shop.example.com"},
			{"joseph", "Joseph", "Smith", ""},
			{"anna", "Anna", "Josefsson", "anna@mail.example.com"},
		} {
			e.clock.Add(time.Duration(i+1) * 24 * time.Hour)
			_, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: n.user, FirstName: n.first, LastName: n.last,
				EmailAddress: n.email, Password: "list password"})
			require.NoError(t, err)
		}
		reader, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: "reader", Password: "reader password",
			Permissions: []auth.Permission{auth.PermUsersRead}})
		require.NoError(t, err)
		actor := login(t, e, "reader", "reader password")
		s := func(v string) *string { return &v }
		names := func(q auth.UserQuery) ([]string, int) {
			t.Helper()
			q.SortDataField = s("createdDate")
			p, err := e.svc.ListUsers(ctx, actor, q)
			require.NoError(t, err)
			var out []string
			for _, u := range p.Items {
				out = append(out, u.Username)
			}
			return out, p.TotalItems
		}
		got, total := names(auth.UserQuery{})
		assert.Equal(t, []string{"Admin", "viewer", "jose", "joseph", "anna", "reader"}, got, "the brand's users only")
		assert.Equal(t, 6, total)
		got, _ = names(auth.UserQuery{Keywords: s("JOSE")})
		assert.Equal(t, []string{"jose", "joseph", "anna"}, got, "case and accents ignored, every word's start")
		got, _ = names(auth.UserQuery{Keywords: s("jos alv")})
		assert.Equal(t, []string{"jose"}, got)
		got, _ = names(auth.UserQuery{Username: s(" JOSE ")})
		assert.Equal(t, []string{"jose"}, got)
		got, _ = names(auth.UserQuery{EmailAddress: s("Anna@Mail.example.com")})
		assert.Equal(t, []string{"anna"}, got)
		got, _ = names(auth.UserQuery{CreatedDateFrom: s(e.clock.Now().AddDate(0, 0, -3).Format(time.DateOnly)),
			CreatedDateTo: s(e.clock.Now().AddDate(0, 0, -3).Format(time.DateOnly))})
		assert.Equal(t, []string{"joseph"}, got, "both dates' days included")
		got, total = names(auth.UserQuery{RoleID: s("r1")})
		assert.Empty(t, got, "no user holds a role yet")
		assert.Zero(t, total)
		got, total = names(auth.UserQuery{Keywords: s("¿?")})
		assert.Empty(t, got, "keywords without a word match nothing")
		assert.Zero(t, total)
		p, err := e.svc.ListUsers(ctx, actor, auth.UserQuery{PageSize: 2000, PageNumber: 0, SortDataField: s("USERNAME"), SortOrder: s("desc")})
		require.NoError(t, err)
		assert.Equal(t, auth.MaxUserPageSize, p.PageSize, "clamped")
		assert.Equal(t, "viewer", p.Items[0].Username)
		assert.NotEmpty(t, reader.ID)

		for _, tc := range []struct {
			name  string
			q     auth.UserQuery
			field string
		}{
			{"sort", auth.UserQuery{SortDataField: s("code")}, "sortDataField"},
			{"order", auth.UserQuery{SortOrder: s("up")}, "sortOrder"},
			{"page", auth.UserQuery{PageNumber: -1}, "pageNumber"},
			{"size", auth.UserQuery{PageSize: -1}, "pageSize"},
			{"status", auth.UserQuery{Status: s("Deleted")}, "status"},
			{"date", auth.UserQuery{CreatedDateFrom: s("yesterday")}, "createdDateFrom"},
			{"ids", auth.UserQuery{IDs: make([]string, auth.MaxUserIDs+1)}, "ids"},
			{"long", auth.UserQuery{Keywords: s(strings.Repeat("a", 201))}, "keywords"},
		} {
			_, err := e.svc.ListUsers(ctx, actor, tc.q)
			assert.Equal(t, []string{tc.field}, fieldNames(err), tc.name)
		}
		_, err = e.svc.ListUsers(ctx, login(t, e, "viewer", "viewer password"), auth.UserQuery{})
		assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err), "users.read is needed")
		writer, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: "writer", Password: "writer password",
			Permissions: []auth.Permission{auth.PermUsersWrite}})
		require.NoError(t, err)
		_, err = e.svc.ListUsers(ctx, login(t, e, writer.Username, "writer password"), auth.UserQuery{})
		assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err), "users.write does not read")
	})
}

// fieldNames returns the fields of err's field errors.
func fieldNames(err error) []string {
	var out []string
	for _, f := range envelope.As(err).Fields {
		out = append(out, f.Field)
	}
	return out
}

// TestReadUsers checks the reads of one user: by ID, by username and by a
// list of IDs, in the actor's brand only.
func TestReadUsers(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		admin := login(t, e, "admin", adminPassword)
		u, err := e.svc.ReadUser(ctx, admin, e.viewer.ID)
		require.NoError(t, err)
		assert.Equal(t, "viewer", u.Username)
		_, err = e.svc.ReadUser(ctx, admin, e.stray.ID)
		assert.ErrorIs(t, err, auth.ErrUserNotFound, "another brand's user")
		u, err = e.svc.ReadUserByUsername(ctx, admin, "VIEWER")
		require.NoError(t, err)
		assert.Equal(t, e.viewer.ID, u.ID)
		list, err := e.svc.ReadUsers(ctx, admin, []string{e.viewer.ID, e.stray.ID, "nobody", e.admin.ID, e.viewer.ID})
		require.NoError(t, err)
		require.Len(t, list, 2)
		assert.Equal(t, []string{e.viewer.ID, e.admin.ID}, []string{list[0].ID, list[1].ID}, "in the order asked, once")
		_, err = e.svc.ReadUser(ctx, login(t, e, "viewer", "viewer password"), e.admin.ID)
		assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err))
	})
}

// TestDeleteUserEndsEverything: a deleted user's keys are refused at once,
// it cannot sign in, and its username is free again.
func TestDeleteUserEndsEverything(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		admin := login(t, e, "admin", adminPassword)
		s, err := e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "viewer", Password: "viewer password"})
		require.NoError(t, err)
		_, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey) // cached
		require.NoError(t, err)
		require.NoError(t, e.svc.DeleteUser(ctx, admin, e.viewer.ID))
		_, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey)
		assert.Equal(t, auth.CodeUnauthenticated, envelope.CodeOf(err))
		_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: s.RefreshAuthKey})
		assert.Equal(t, auth.CodeUnauthenticated, envelope.CodeOf(err))
		_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "viewer", Password: "viewer password"})
		assert.Equal(t, auth.CodeInvalidCredentials, envelope.CodeOf(err))
		_, err = e.svc.User(ctx, e.viewer.ID)
		assert.ErrorIs(t, err, auth.ErrUserNotFound)
		_, err = e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: "viewer", Password: "a new viewer password"})
		assert.NoError(t, err, "the username is free again")
		assert.ErrorIs(t, e.svc.DeleteUser(ctx, admin, e.viewer.ID), auth.ErrUserNotFound)
	})
}

// TestUserStatistics checks the users created per day and per month,
// every period of the range answered, and the refusals.
func TestUserStatistics(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		admin := login(t, e, "admin", adminPassword)
		day0 := e.clock.Now().UTC() // Admin and viewer were created now
		for i, d := range []time.Duration{24, 24, 0, 48} {
			e.clock.Add(d * time.Hour)
			_, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: "stat" + itoa(i), Password: "stat password"})
			require.NoError(t, err)
		}
		date := func(d int) string { return day0.AddDate(0, 0, d).Format(time.DateOnly) }
		got, err := e.svc.UserStatistics(ctx, admin, auth.StatisticsQuery{StartDate: date(0) + " 00:00:00", EndDate: date(4) + " 23:59:59", TypeResponse: "date"})
		require.NoError(t, err)
		assert.Equal(t, []auth.StatisticPoint{{date(0), 2}, {date(1), 1}, {date(2), 2}, {date(3), 0}, {date(4), 1}}, got)
		got, err = e.svc.UserStatistics(ctx, admin, auth.StatisticsQuery{StartDate: date(1), EndDate: date(2)})
		require.NoError(t, err)
		assert.Equal(t, []auth.StatisticPoint{{date(1), 1}, {date(2), 2}}, got, "DATE by default; date-only ends take the day")
		got, err = e.svc.UserStatistics(ctx, admin, auth.StatisticsQuery{StartDate: date(-40), EndDate: date(4), TypeResponse: "MONTH"})
		require.NoError(t, err)
		sum := 0
		for _, p := range got {
			sum += p.Quantity
			assert.Len(t, p.Date, len("2006-01"))
		}
		assert.Equal(t, 6, sum)
		for _, tc := range []struct {
			q     auth.StatisticsQuery
			field string
		}{
			{auth.StatisticsQuery{EndDate: date(1)}, "startDate"},
			{auth.StatisticsQuery{StartDate: date(1), EndDate: date(0)}, "endDate"},
			{auth.StatisticsQuery{StartDate: date(0), EndDate: date(1), TypeResponse: "WEEK"}, "typeResponse"},
			{auth.StatisticsQuery{StartDate: date(0), EndDate: date(1000)}, "endDate"},
			{auth.StatisticsQuery{StartDate: "soon", EndDate: date(1)}, "startDate"},
		} {
			_, err := e.svc.UserStatistics(ctx, admin, tc.q)
			assert.Equal(t, []string{tc.field}, fieldNames(err), "%+v", tc.q)
		}
		counts, err := e.svc.CountUsers(ctx, admin)
		require.NoError(t, err)
		assert.Equal(t, auth.UserStatusCounts{Total: 6, Active: 6}, counts)
		_, err = e.svc.UserStatistics(ctx, login(t, e, "viewer", "viewer password"), auth.StatisticsQuery{StartDate: date(0), EndDate: date(1)})
		assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err))
	})
}

// TestAdministrationChecksInTheWrite: each act on a user checks the rule
// again on the user as its write reads it, so that a grant made between
// the check and the write (staleUsers: the first read misses the admin's
// "*") does not let the caller through.
func TestAdministrationChecksInTheWrite(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		_, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: "manager", Password: "manager password",
			Permissions: []auth.Permission{auth.PermUsersWrite}})
		require.NoError(t, err)
		manager := login(t, e, "manager", "manager password")
		svc := auth.NewService(staleUsers{e.store}, auth.WithClock(e.clock.Now), auth.WithArgon2Params(fastArgon2))
		name, nick := "taken", "taken over"
		_, err = svc.UpdateUserAs(ctx, manager, e.admin.ID, auth.UserUpdate{Username: &name, NickName: &nick})
		assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err), "update")
		for _, c := range []auth.StatusChange{auth.Deactivate, auth.Lock, auth.Suspend} {
			_, err = svc.ChangeUserStatus(ctx, manager, e.admin.ID, c)
			assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err), c)
		}
		assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(svc.DeleteUser(ctx, manager, e.admin.ID)), "delete")
		u, err := e.svc.User(ctx, e.admin.ID)
		require.NoError(t, err)
		assert.Equal(t, auth.StatusActive, u.Status)
		assert.Equal(t, "Admin", u.Username)
		login(t, e, "admin", adminPassword)
	})
}
