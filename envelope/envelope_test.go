package envelope_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
)

func TestSuccessJSON(t *testing.T) {
	t.Parallel()
	body, err := envelope.Marshal(envelope.Success(http.StatusOK, "", map[string]int{"n": 1}))
	require.NoError(t, err)
	assert.JSONEq(t, `{"success":true,"statusCode":200,"message":"OK","data":{"n":1},"errors":[]}`, string(body))
}

func TestFailureJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *envelope.Error
		want string
	}{
		{
			name: "no fields: one item from code and message",
			err:  envelope.New(envelope.KindNotFound, "brand_not_found", "No brand."),
			want: `{"success":false,"statusCode":404,"message":"No brand.","data":null,
				"errors":[{"code":"brand_not_found","message":"No brand.","details":"No brand."}]}`,
		},
		{
			name: "field items",
			err: envelope.Invalid("Bad.", envelope.Field("trackingId", "required", "trackingId is required."),
				envelope.Field("apiKey", "too_short", "apiKey is too short.")),
			want: `{"success":false,"statusCode":404,"message":"Bad.","data":null,"errors":[
				{"code":"required","field":"trackingId","message":"trackingId is required.","details":"trackingId is required."},
				{"code":"too_short","field":"apiKey","message":"apiKey is too short.","details":"apiKey is too short."}]}`,
		},
		{
			name: "cause never sent",
			err:  envelope.Internal(errors.New("secret table name")),
			want: `{"success":false,"statusCode":404,"message":"An internal error occurred.","data":null,
				"errors":[{"code":"internal_error","message":"An internal error occurred.","details":"An internal error occurred."}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body, err := envelope.Marshal(envelope.Failure(http.StatusNotFound, tt.err))
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(body))
		})
	}
}

func TestFailureItemsCarryMessage(t *testing.T) {
	t.Parallel()
	// An item built by hand, without Message, still answers with one.
	e := &envelope.Error{Kind: envelope.KindInvalid, Code: "invalid_request", Message: "Bad.",
		Fields: []envelope.ErrorItem{{Code: "required", Field: "name", Details: "name is required."}}}
	env := envelope.Failure(http.StatusBadRequest, e)
	require.Len(t, env.Errors, 1)
	assert.Equal(t, "name is required.", env.Errors[0].Message)
	assert.Equal(t, "name is required.", env.Errors[0].Details)
	assert.Empty(t, e.Fields[0].Message, "the error itself is not changed")
}

func TestKindOf(t *testing.T) {
	t.Parallel()
	wrapped := fmt.Errorf("outer: %w", envelope.New(envelope.KindForbidden, "access_denied", "No."))
	tests := []struct {
		err  error
		kind envelope.Kind
		code string
	}{
		{nil, "", ""},
		{wrapped, envelope.KindForbidden, "access_denied"},
		{errors.New("plain"), envelope.KindInternal, "internal_error"},
		{context.Canceled, envelope.KindUnavailable, "request_cancelled"},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), envelope.KindUnavailable, "request_cancelled"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.kind, envelope.KindOf(tt.err), "%v", tt.err)
		assert.Equal(t, tt.code, envelope.CodeOf(tt.err), "%v", tt.err)
	}
	cause := errors.New("disk")
	e := envelope.Internal(cause)
	assert.ErrorIs(t, e, cause)
	assert.Contains(t, e.Error(), "disk", "logs see the cause")
}

func TestValidation(t *testing.T) {
	t.Parallel()
	var v envelope.Validation
	require.NoError(t, v.Err())
	v.Add("name", "required", "name is required")
	assert.True(t, v.Has("name"))
	assert.False(t, v.Has("other"))
	assert.True(t, v.Merge(envelope.Invalid("x", envelope.Field("url", "invalid_url", "bad url"))))
	assert.False(t, v.Merge(envelope.NotFound("gone")))
	err := v.Err()
	require.Error(t, err)
	assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err))
	var e *envelope.Error
	require.ErrorAs(t, err, &e)
	assert.Len(t, e.Fields, 2)
}

func TestWriteFallsBackOnUnencodableData(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	err := envelope.Write(rec, envelope.Success(http.StatusOK, "", math.Inf(1)))
	require.Error(t, err)
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	var got map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
	assert.Equal(t, false, got["success"])
	assert.EqualValues(t, 500, got["statusCode"])
}

func TestErrorIsMatchesSentinelCopies(t *testing.T) {
	t.Parallel()
	sentinel := envelope.NotFound("The thing does not exist.")
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"itself", sentinel, true},
		{"copy with a cause", sentinel.WithCause(errors.New("driver")), true},
		{"wrapped copy", fmt.Errorf("store: %w", sentinel.WithCause(io.EOF)), true},
		{"same kind, other message", envelope.NotFound("Another thing does not exist."), false},
		{"same message, other kind", envelope.Conflict("The thing does not exist."), false},
		{"plain error", errors.New("The thing does not exist."), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, errors.Is(tc.err, sentinel))
		})
	}
}
