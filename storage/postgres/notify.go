package postgres

import (
	"strings"

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
}

// String returns the payload of c: "kind:id".
func (c Change) String() string { return c.Kind + ":" + c.ID }

// parseChange decodes a payload that Change.String encoded; false when it
// has no colon.
func parseChange(payload string) (Change, bool) {
	kind, id, ok := strings.Cut(payload, ":")
	return Change{Kind: kind, ID: id}, ok
}
