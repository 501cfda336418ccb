package storage

// SchemaStatus compares the migrations a database has applied with those
// a build of a SQL store embeds. Every list holds migration file names
// ("0009_list_engine.sql"), in version order.
type SchemaStatus struct {
	// Applied are the migrations the database recorded that this build
	// embeds too.
	Applied []string `json:"applied"`
	// Pending are the migrations this build embeds that the database has
	// not applied: the store's Open applies them.
	Pending []string `json:"pending"`
	// Newer are the migrations the database recorded that this build
	// does not embed: a newer build migrated it. This build may keep
	// serving on it (migrations expand the schema before a later release
	// contracts it; see docs/operations.md), but must not migrate it.
	Newer []string `json:"newer"`
}

// UpToDate reports whether the database has applied exactly the
// migrations this build embeds: none pending, none newer.
func (s SchemaStatus) UpToDate() bool { return len(s.Pending) == 0 && len(s.Newer) == 0 }
