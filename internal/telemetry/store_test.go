package telemetry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/internal/telemetry"
)

// TestErrorType: a store error's error.type is bounded: the domain's code
// (a domain answer), the context's end, unavailable, else _OTHER.
func TestErrorType(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err    error
		typ    string
		domain bool
	}{
		{fmt.Errorf("read: %w", envelope.NotFound("no brand")), "not_found", true},
		{envelope.New(envelope.KindConflict, "user_exists", "taken"), "user_exists", true},
		{envelope.Unavailable(errors.New("down"), 1), "unavailable", false},
		{fmt.Errorf("wait: %w", context.Canceled), "canceled", false},
		{context.DeadlineExceeded, "deadline_exceeded", false},
		{errors.New("disk on fire 42"), "_OTHER", false},
	} {
		typ, domain := telemetry.ErrorType(tc.err)
		assert.Equal(t, tc.typ, typ, "%v", tc.err)
		assert.Equal(t, tc.domain, domain, "%v", tc.err)
	}
	var nilCalls *telemetry.StoreCalls
	ctx, call := nilCalls.Start(context.Background(), "BrandByID")
	call.End(ctx, nil) // a nil recorder does nothing
}
