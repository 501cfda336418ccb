//go:build race

package ratelimit_test

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = true
