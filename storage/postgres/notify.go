package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Change kinds: what a notification says changed (the SQL core's
// sqlstore.ChangeBrand and ChangeUser are the same strings).
const (
	// ChangeBrand: the brand with ID changed (created or updated).
	ChangeBrand = "brand"
	// ChangeUser: the user with ID, its key pairs or its devices changed.
	ChangeUser = "user"
	// ChangeRefData: reference data changed (ID is empty).
	ChangeRefData = "refdata"
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

// notify queues c on the store's channel inside tx (dialect.Notify).
func (s *Store) notify(ctx context.Context, tx pgx.Tx, c Change) error {
	return dialect{s}.Notify(ctx, db{tx}, c.Kind, c.ID)
}
