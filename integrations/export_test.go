package integrations

// SealSecret seals plain as the service seals the secret field of the
// configuration (kind, brandID, id), under its ring's primary key: for
// tests that seed many configurations in bulk.
func (s *Service) SealSecret(kind RecordKind, brandID, id, field, plain string) []byte {
	return s.seal(secretField{brandID: brandID, recordID: id, kind: kind, field: field}, plain)
}
