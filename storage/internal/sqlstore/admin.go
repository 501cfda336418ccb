package sqlstore

// auth.AdminStore on the core: the filtered, sorted, paged list of a
// brand's users, their deletion and their counts. The users' search words
// (auth.UserWords) are rows of user_words, written with the user
// (putUserWords); a keyword is a range of that table's primary key
// (brand_id, word, user_id), so a search reads the index, never the
// users' rows one by one. The list's statements vary with the filter, so
// they are rebound for a numbering dialect without the cache of bind.

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/outbox"
)

// wordEnd follows every prefix's words in byte order: a word starting with
// a prefix p is at least p and below p+wordEnd (U+10FFFF, the highest code
// point, which no word holds).
const wordEnd = "\U0010FFFF"

// putUserWords writes, in tx, the change of the search words of user
// userID of brandID from old to words (both sorted and distinct, as
// auth.UserWords returns them).
func (c *Core) putUserWords(ctx context.Context, tx DB, brandID, userID string, old, words []string) error {
	for _, w := range old {
		if _, found := slices.BinarySearch(words, w); !found {
			if _, err := c.exec(ctx, tx, nil, nil, `DELETE FROM user_words WHERE brand_id = ? AND word = ? AND user_id = ?`,
				brandID, w, userID); err != nil {
				return err
			}
		}
	}
	var rows []string
	var args []any
	for _, w := range words {
		if _, found := slices.BinarySearch(old, w); !found {
			rows = append(rows, "(?, ?, ?)")
			args = append(args, brandID, w, userID)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	_, err := c.exec(ctx, tx, nil, nil, `INSERT INTO user_words (brand_id, word, user_id) VALUES `+strings.Join(rows, ", "), args...)
	return err
}

// rebindOnce returns query in the dialect's placeholders without keeping
// it (a statement whose text varies with the request).
func (c *Core) rebindOnce(query string) string {
	if c.d.Numbered() {
		return Rebind(query)
	}
	return query
}

// userListWhere returns the condition of f on the users of brandID, and
// its arguments. With byWords, f's first term is left out: the caller
// drives the query from that term's words (userWordsFrom).
func (c *Core) userListWhere(brandID string, f auth.UserFilter, byWords bool) (string, []any) {
	where := []string{"u.brand_id = ?"}
	args := []any{brandID}
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if f.IDs != nil {
		add("u.id IN ("+placeholders(len(f.IDs))+")", anys(f.IDs)...)
	}
	if f.UsernameKey != "" {
		add("u.username_key = ?", f.UsernameKey)
	}
	if f.EmailKey != "" {
		add("u.email_key = ?", f.EmailKey)
	}
	if f.Status != "" {
		add("u.status = ?", string(f.Status))
	}
	if !f.CreatedFrom.IsZero() {
		add("u.created_at >= ?", c.d.Time(f.CreatedFrom))
	}
	if !f.CreatedBefore.IsZero() {
		add("u.created_at < ?", c.d.Time(f.CreatedBefore))
	}
	terms := f.Terms
	if byWords && len(terms) > 0 {
		terms = terms[1:]
	}
	for _, t := range terms {
		add("u.id IN (SELECT user_id FROM user_words WHERE brand_id = ? AND word >= ? AND word < ?)", brandID, t, t+wordEnd)
	}
	return strings.Join(where, " AND "), args
}

// wordsDriven is the most users a keyword search may select for its page
// to be read from the words of its first term (each user found by its
// key, the few sorted), rather than by walking the order's index until
// the page is full (which is quick only when matches are many). A
// variable for the test that compares both plans (export_test.go).
var wordsDriven = 10000

// userWordsFrom returns the FROM clause of a page driven by the first
// term's words, and its arguments: CROSS JOIN makes SQLite read the words
// first; PostgreSQL plans it as any join.
func userWordsFrom(brandID, term string) (string, []any) {
	return `(SELECT DISTINCT user_id FROM user_words WHERE brand_id = ? AND word >= ? AND word < ?) w
		CROSS JOIN users u`, []any{brandID, term, term + wordEnd}
}

// anys returns ss as arguments.
func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// userOrder returns the ORDER BY list of a sort; desc reverses every key,
// so ties reverse too. Each order is an index's (users_brand_id,
// users_brand_created, users_username, users_brand_status).
func userOrder(sort auth.UserSort, desc bool) string {
	var keys []string
	switch sort {
	case auth.UserSortCreated:
		keys = []string{"u.created_at", "u.seq"}
	case auth.UserSortUsername:
		keys = []string{"u.username_key"}
	case auth.UserSortStatus:
		keys = []string{"u.status", "u.created_at", "u.seq"}
	default:
		keys = []string{"u.id"}
	}
	if desc {
		for i := range keys {
			keys[i] += " DESC"
		}
	}
	return strings.Join(keys, ", ")
}

// ListUserPage implements auth.AdminStore: the count and the page are
// read in one read transaction, so the total is the page's. A keyword
// search that selects at most wordsDriven users reads its page from the
// words of its first term.
func (c *Core) ListUserPage(ctx context.Context, brandID string, f auth.UserFilter) ([]auth.UserRecord, int, error) {
	if f.Nothing || f.IDs != nil && len(f.IDs) == 0 {
		return []auth.UserRecord{}, 0, ctx.Err()
	}
	where, args := c.userListWhere(brandID, f, false)
	out := []auth.UserRecord{}
	var total int
	err := c.d.Read(ctx, func(tx DB) error {
		if err := tx.QueryRow(ctx, c.rebindOnce(`SELECT count(*) FROM users u WHERE `+where), args...).Scan(&total); err != nil {
			return c.d.Error(ctx, err)
		}
		if f.Offset >= total {
			return nil
		}
		from, fromArgs := "users u", []any(nil)
		if len(f.Terms) > 0 && total <= wordsDriven {
			from, fromArgs = userWordsFrom(brandID, f.Terms[0])
			where, args = c.userListWhere(brandID, f, true)
			where = "u.id = w.user_id AND " + where
		}
		var err error
		out, err = c.scanUserPage(ctx, tx, `SELECT `+userColumnsOf("u")+` FROM `+from+` WHERE `+where+
			` ORDER BY `+userOrder(f.Sort, f.Desc)+` LIMIT `+strconv.Itoa(max(f.Limit, 1))+` OFFSET `+strconv.Itoa(f.Offset),
			append(fromArgs, args...))
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// scanUserPage runs query (a statement of its own: rebound, not kept) in
// tx and scans its users.
func (c *Core) scanUserPage(ctx context.Context, tx DB, query string, args []any) ([]auth.UserRecord, error) {
	rows, err := tx.Query(ctx, c.rebindOnce(query), args...)
	if err != nil {
		return nil, c.d.Error(ctx, err)
	}
	defer rows.Close()
	out := []auth.UserRecord{}
	for rows.Next() {
		u, err := c.scanUser(rows)
		if err != nil {
			return nil, c.d.Error(ctx, err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, c.d.Error(ctx, err)
	}
	return out, nil
}

// userColumnsOf returns UserColumns, each qualified by the table alias a.
func userColumnsOf(a string) string {
	cols := strings.Split(UserColumns, ",")
	for i, col := range cols {
		cols[i] = a + "." + strings.TrimSpace(col)
	}
	return strings.Join(cols, ", ")
}

// DeleteUser implements auth.AdminStore: the user's row is locked
// (ForUpdate) while check runs, its single-use tokens are ended
// (endUserTokens) and its row deleted; the tables of what is the user's
// (key_pairs, devices, password_reset_tokens, user_identifiers,
// user_words) delete theirs with it (ON DELETE CASCADE). It notifies
// ChangeUser. auth.ErrUserNotFound if absent.
func (c *Core) DeleteUser(ctx context.Context, id string, check func(auth.UserRecord) error, out ...outbox.Item) (auth.UserRecord, error) {
	var u auth.UserRecord
	err := c.write(ctx, func(tx DB) error {
		var err error
		u, err = queryOne(ctx, c, tx, c.scanUser, auth.ErrUserNotFound, `SELECT `+UserColumns+` FROM users WHERE id = ?`+c.d.ForUpdate(), id)
		if err != nil {
			return err
		}
		if check != nil {
			if err := check(u); err != nil {
				return err
			}
		}
		if err := c.endUserTokens(ctx, tx, id); err != nil {
			return err
		}
		if err := c.execOne(ctx, tx, auth.ErrUserNotFound, nil, `DELETE FROM users WHERE id = ?`, id); err != nil {
			return err
		}
		if err := c.enqueue(ctx, tx, out); err != nil {
			return err
		}
		return c.changed(ctx, tx, ChangeUser, id)
	})
	if err != nil {
		return auth.UserRecord{}, err
	}
	return u, nil
}

// statusCount is a row of CountUsersByStatus.
type statusCount struct {
	status string
	n      int
}

// CountUsersByStatus implements auth.AdminStore (an index-only count:
// users_brand_status).
func (c *Core) CountUsersByStatus(ctx context.Context, brandID string) (map[auth.Status]int, error) {
	rows, err := QueryAll(ctx, c, c.r, func(s Scanner) (statusCount, error) {
		var sc statusCount
		return sc, s.Scan(&sc.status, &sc.n)
	}, `SELECT status, count(*) FROM users WHERE brand_id = ? GROUP BY status`, brandID)
	if err != nil {
		return nil, err
	}
	out := make(map[auth.Status]int, len(rows))
	for _, r := range rows {
		out[auth.Status(r.status)] = r.n
	}
	return out, nil
}

// createdChunk is how many periods one statement of CountUsersCreated
// counts.
const createdChunk = 100

// CountUsersCreated implements auth.AdminStore: each period is a count of
// a range of users_brand_created, periods counted a hundred to a
// statement (UNION ALL, each row numbered), all in one read transaction.
func (c *Core) CountUsersCreated(ctx context.Context, brandID string, bounds []time.Time) ([]int, error) {
	if len(bounds) < 2 {
		return []int{}, ctx.Err()
	}
	counts := make([]int, len(bounds)-1)
	err := c.d.Read(ctx, func(tx DB) error {
		for lo := 0; lo < len(counts); lo += createdChunk {
			hi := min(lo+createdChunk, len(counts))
			var parts []string
			var args []any
			for i := lo; i < hi; i++ {
				parts = append(parts, `SELECT `+strconv.Itoa(i)+`, count(*) FROM users WHERE brand_id = ? AND created_at >= ? AND created_at < ?`)
				args = append(args, brandID, c.d.Time(bounds[i]), c.d.Time(bounds[i+1]))
			}
			rows, err := tx.Query(ctx, c.rebindOnce(strings.Join(parts, " UNION ALL ")), args...)
			if err != nil {
				return c.d.Error(ctx, err)
			}
			for rows.Next() {
				var i, n int
				if err := rows.Scan(&i, &n); err != nil {
					rows.Close()
					return c.d.Error(ctx, err)
				}
				counts[i] = n
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return c.d.Error(ctx, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return counts, nil
}

// FillUserWords is the Go step of migration 0018_administration, run in
// its transaction tx (numbered: the placeholders are $1 rather than ?):
// it writes the search words (auth.UserWords) of every stored user.
func FillUserWords(ctx context.Context, tx DB, numbered bool) error {
	rows, err := tx.Query(ctx, `SELECT id, brand_id, username, email_address, first_name, last_name, nick_name FROM users`)
	if err != nil {
		return err
	}
	type userWords struct {
		id, brandID string
		words       []string
	}
	var all []userWords
	for rows.Next() {
		var u auth.User
		if err := rows.Scan(&u.ID, &u.BrandID, &u.Username, &u.EmailAddress, &u.FirstName, &u.LastName, &u.NickName); err != nil {
			rows.Close()
			return err
		}
		all = append(all, userWords{u.ID, u.BrandID, auth.UserWords(u)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	insert := `INSERT INTO user_words (brand_id, word, user_id) VALUES (?, ?, ?)`
	if numbered {
		insert = Rebind(insert)
	}
	for _, u := range all {
		for _, w := range u.words {
			if _, err := tx.Exec(ctx, insert, u.brandID, w, u.id); err != nil {
				return err
			}
		}
	}
	return nil
}
