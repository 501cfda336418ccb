// Package testkit groups the helpers that only tests use, apart from the
// production helpers of internal/ (text folding, telemetry, the serving
// wiring): pgtest (PostgreSQL schemas and throwaway clusters), rawhttp
// (raw HTTP requests), teststores (every store, for a package's tests)
// and telemetrytest (meter and tracer providers that record). No
// production package imports it.
package testkit
