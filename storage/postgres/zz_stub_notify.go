// TEMPORARY stand-in for the core helper's files (wp-pg), deleted when
// wp-pg is merged: the few names listen.go and limiter.go use.
package postgres

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Store stands in for the core store.
type Store struct {
	pool    *pgxpool.Pool
	channel string
	multi   instances
}

// Open stands in for the core Open.
func Open(ctx context.Context, url string) (*Store, error) {
	return nil, errors.New("postgres: not merged yet")
}

// Close stands in for the core Close.
func (s *Store) Close() error {
	s.stopInstances()
	s.pool.Close()
	return nil
}

// Pool returns the pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Channel returns the channel.
func (s *Store) Channel() string { return s.channel }

// Change kinds.
const (
	ChangeBrand   = "brand"
	ChangeUser    = "user"
	ChangeRefData = "refdata"
)

// Change is one notification: what changed.
type Change struct{ Kind, ID string }

// String returns the payload form kind:id.
func (c Change) String() string { return c.Kind + ":" + c.ID }

func parseChange(payload string) (Change, bool) {
	kind, id, ok := strings.Cut(payload, ":")
	return Change{Kind: kind, ID: id}, ok
}

var _ = strings.Cut
