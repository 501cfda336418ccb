package auth

// HoldHashSlots takes every password hashing slot of s, as that many
// hashes in progress would, until the returned function is called.
func HoldHashSlots(s *Service) (release func()) {
	for range cap(s.hasher.sem) {
		s.hasher.sem <- struct{}{}
	}
	return func() {
		for range cap(s.hasher.sem) {
			s.hasher.release()
		}
	}
}
