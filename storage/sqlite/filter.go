package sqlite

import "strings"

// filter builds the WHERE clause of a list query (sqlstore.Equals).
type filter struct {
	conds []string
	args  []any
}

// Equal implements sqlstore.Equals.
func (w *filter) Equal(col string, v any) {
	w.conds = append(w.conds, col+" = ?")
	w.args = append(w.args, v)
}

// where returns the WHERE clause, or "".
func (w *filter) where() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}
