package postgres

import (
	"strconv"
	"strings"
)

// itoa formats a placeholder number.
func itoa(n int) string { return strconv.Itoa(n) }

// filter builds the WHERE clause of a list query with numbered
// placeholders (sqlstore.Equals).
type filter struct {
	conds []string
	args  []any
}

// Equal implements sqlstore.Equals.
func (w *filter) Equal(col string, v any) {
	w.args = append(w.args, v)
	w.conds = append(w.conds, col+" = $"+itoa(len(w.args)))
}

// where returns the WHERE clause, or "".
func (w *filter) where() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}
