package httpadapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/brandbase/brandbase/envelope"
)

// timeoutErr is a net.Error whose Timeout() is true, as a TLS or proxy
// layer may return without wrapping os.ErrDeadlineExceeded.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// Each way reading a body can fail maps to its own answer: a deadline, in
// any of its forms, to 408 request_timeout; the size bound to 413
// body_too_large; anything else to 400 malformed_json.
func TestBodyErrorMapsEachReadError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		kind envelope.Kind
		code string
	}{
		{"os.ErrDeadlineExceeded", os.ErrDeadlineExceeded, envelope.KindRequestTimeout, "request_timeout"},
		{"net.OpError around the deadline", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, envelope.KindRequestTimeout, "request_timeout"},
		{"wrapped deadline", fmt.Errorf("read body: %w", os.ErrDeadlineExceeded), envelope.KindRequestTimeout, "request_timeout"},
		{"a net.Error timing out", fmt.Errorf("tls: %w", timeoutErr{}), envelope.KindRequestTimeout, "request_timeout"},
		{"MaxBytesError", &http.MaxBytesError{Limit: MaxBodyBytes}, envelope.KindTooLarge, "body_too_large"},
		{"wrapped MaxBytesError", fmt.Errorf("x: %w", &http.MaxBytesError{Limit: MaxBodyBytes}), envelope.KindTooLarge, "body_too_large"},
		{"unexpected EOF", io.ErrUnexpectedEOF, envelope.KindInvalid, "malformed_json"},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}, envelope.KindInvalid, "malformed_json"},
		{"a context deadline while reading (a net.Error too)", context.DeadlineExceeded, envelope.KindRequestTimeout, "request_timeout"},
	} {
		got := envelope.As(bodyError(tc.err))
		assert.Equal(t, tc.kind, got.Kind, tc.name)
		assert.Equal(t, tc.code, got.Code, tc.name)
		assert.ErrorIs(t, got, tc.err, "%s: the read error stays the cause", tc.name)
	}
	assert.Equal(t, http.StatusRequestTimeout, StatusOf(envelope.KindRequestTimeout))
}
