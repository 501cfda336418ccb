package auth

import (
	"io"
	"time"
)

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

// SetMeanHashHold sets the measured mean time a hash holds its slot, as if
// hashes had taken d.
func SetMeanHashHold(s *Service, d time.Duration) { s.hasher.meanHold.Store(int64(d)) }

// WithRandom sets the source of random bytes for keys, salts and the dummy
// password, for tests that need repeatable keys.
func WithRandom(r io.Reader) Option { return withRandom(r) }

// WaitAccessWrites waits for the background writes of devices' last access
// that s has started.
func WaitAccessWrites(s *Service) { s.access.writes.Wait() }
