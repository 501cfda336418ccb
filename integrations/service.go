package integrations

// Service applies the rules of app integrations and their configurations on
// top of a Store. It is safe for concurrent use.
type Service struct {
	store Store
}

// NewService returns a Service on store.
func NewService(store Store) *Service {
	return &Service{store: store}
}
