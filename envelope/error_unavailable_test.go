package envelope_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
)

func TestUnavailable(t *testing.T) {
	t.Parallel()
	cause := errors.New("dial tcp: connection refused")
	for _, tc := range []struct {
		name  string
		after int
		want  int
	}{
		{"given", 5, 5},
		{"default", 0, envelope.DefaultRetryAfter},
		{"negative", -3, envelope.DefaultRetryAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := envelope.Unavailable(cause, tc.after)
			assert.Equal(t, envelope.KindUnavailable, e.Kind)
			assert.Equal(t, "unavailable", e.Code)
			assert.Equal(t, tc.want, e.RetryAfter)
			assert.ErrorIs(t, e, cause)
			wrapped := fmt.Errorf("store: %w", e)
			assert.True(t, envelope.IsUnavailable(wrapped))
			require.Equal(t, envelope.KindUnavailable, envelope.KindOf(wrapped))
		})
	}
	assert.False(t, envelope.IsUnavailable(cause))
	assert.False(t, envelope.IsUnavailable(envelope.Internal(cause)))
}
