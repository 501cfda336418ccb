package postgres

import (
	"strconv"
	"strings"
	"time"

	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// Change kinds: what a notification says changed (the SQL core's
// sqlstore.ChangeBrand and ChangeUser are the same strings).
const (
	// ChangeBrand: the brand with ID changed (created or updated).
	ChangeBrand = "brand"
	// ChangeUser: the user with ID, its key pairs or its devices changed.
	ChangeUser = "user"
	// ChangeRefData: reference data changed (ID is empty).
	ChangeRefData = sqlstore.ChangeRefData
)

// Change is what one NOTIFY on [Store.Channel] says: a Kind (ChangeBrand,
// ChangeUser, ChangeRefData, or another kind a listener defines) and the ID
// of the record that changed, if any. Its payload is "kind:id".
type Change struct {
	Kind, ID string
	// At is when the change was written, by the database's clock, as the
	// writer's notification tells it; zero when it does not (a writer of
	// an older version, a NOTIFY sent by hand, ChangeAll).
	At time.Time
}

// changeAt is the kind of the notification a store sends just before each
// change: "at:" and the database's clock in microseconds since 1970. The
// listener reads it as the time of the change that follows from the same
// backend and delivers nothing for it; an older listener ignores it, as
// any kind it does not know.
const changeAt = "at"

// parseAt reads an "at:" payload.
func parseAt(payload string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(payload, changeAt+":")
	if !ok {
		return time.Time{}, false
	}
	us, err := strconv.ParseInt(rest, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.UnixMicro(us), true
}

// String returns the payload of c: "kind:id" (At is sent apart).
func (c Change) String() string { return c.Kind + ":" + c.ID }

// parseChange decodes a payload that Change.String encoded; false when it
// has no colon.
func parseChange(payload string) (Change, bool) {
	kind, id, ok := strings.Cut(payload, ":")
	return Change{Kind: kind, ID: id}, ok
}
