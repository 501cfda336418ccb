package auth

import (
	"context"
	"slices"
	"time"

	"github.com/brandbase/brandbase/internal/textfold"
	"github.com/brandbase/brandbase/outbox"
)

// AdminStore is what the administration of a brand's users needs from
// storage, beside the user methods of [Store]: a filtered, sorted and
// paged list with its exact total, deletion, and counts. Its methods
// follow the contract of Store.
type AdminStore interface {
	// ListUserPage returns the users of brandID that f selects, in f's
	// order, from f.Offset and at most f.Limit of them, and how many users
	// f selects in all (exact). An empty page past the end is not an
	// error; f.Nothing selects no user (0 and an empty page).
	ListUserPage(ctx context.Context, brandID string, f UserFilter) ([]UserRecord, int, error)
	// DeleteUser deletes the user with that ID and everything that is
	// only the user's: key pairs, devices, single-use tokens (ended as
	// UpdateUser ends them), lookup keys and search words, in one
	// transaction; nothing of the user is kept. check, when not nil, runs
	// on the user read under the transaction's lock, and its error aborts
	// the deletion and is returned as is. It returns the deleted record.
	// [ErrUserNotFound] if the user does not exist.
	DeleteUser(ctx context.Context, id string, check func(UserRecord) error, out ...outbox.Item) (UserRecord, error)
	// CountUsersByStatus returns how many users of brandID hold each
	// status (a status no user holds is absent).
	CountUsersByStatus(ctx context.Context, brandID string) (map[Status]int, error)
	// CountUsersCreated returns, for each i below len(bounds)-1, how many
	// users of brandID were created at or after bounds[i] and before
	// bounds[i+1]. bounds ascend; fewer than two bounds answer nothing.
	CountUsersCreated(ctx context.Context, brandID string, bounds []time.Time) ([]int, error)
}

// UserSort is the order of a list of users.
type UserSort string

// The orders of a list of users; ties (equal statuses, equal creation
// times) break by creation order.
const (
	// UserSortID orders by ID (the order of creation, for IDs the
	// service made: they are UUIDv7).
	UserSortID UserSort = "id"
	// UserSortCreated orders by creation time, then insertion order.
	UserSortCreated UserSort = "createdDate"
	// UserSortUsername orders by the username's lookup key ([FoldKey]),
	// byte by byte.
	UserSortUsername UserSort = "username"
	// UserSortStatus orders by status, then by creation.
	UserSortStatus UserSort = "status"
)

// UserFilter is a validated query of a brand's users, as a store receives
// it from [Service.ListUsers]: every non-zero field must hold (AND).
type UserFilter struct {
	// IDs, when not nil, are the only IDs selected.
	IDs []string
	// UsernameKey and EmailKey select the user whose key equals it.
	UsernameKey, EmailKey string
	// Status selects the users of that status.
	Status Status
	// CreatedFrom selects the users created at or after it; CreatedBefore
	// those created before it.
	CreatedFrom, CreatedBefore time.Time
	// Terms are folded words ([UserWords]): each must be the start of one
	// of the user's words.
	Terms []string
	// Nothing selects no user (a filter that no user can match).
	Nothing bool
	// Sort and Desc are the order; Desc reverses it whole, ties included.
	Sort UserSort
	Desc bool
	// Offset is the index of the page's first user; Limit the page size
	// (at least 1).
	Offset, Limit int
}

// UserWords returns the words a keyword search of users matches: the
// folded words (case and accents ignored) of u's username, email address
// and names, sorted and distinct. Stores keep them in an index of their
// own, written with the user.
func UserWords(u User) []string {
	var words []string
	for _, f := range []string{u.Username, u.EmailAddress, u.FirstName, u.LastName, u.NickName} {
		words = append(words, textfold.Words(f)...)
	}
	slices.Sort(words)
	return slices.Compact(words)
}
