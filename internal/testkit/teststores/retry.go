package teststores

import "github.com/brandbase/brandbase/envelope"

// maxRetries bounds RetryUnavailable's retries.
const maxRetries = 100

// RetryUnavailable calls fn as a client of the HTTP API would: again as
// long as it fails with envelope.Unavailable and a Retry-After (a 503
// with Retry-After: a store gave up on a wait, a lock's say, and nothing
// was written), up to 100 retries, at once rather than after the
// Retry-After (a test does not wait for time). It returns the number of
// retries and fn's last error: nil once a call succeeded.
func RetryUnavailable(fn func() error) (retries int, err error) {
	for {
		err = fn()
		if e := envelope.As(err); e == nil || !envelope.IsUnavailable(err) || e.RetryAfter < 1 || retries == maxRetries {
			return retries, err
		}
		retries++
	}
}
