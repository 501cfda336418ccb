package events_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/events"
	"github.com/brandbase/brandbase/outbox"
)

func TestNew(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 29, 2, 40, 0, 123456000, time.FixedZone("x", 3600))
	it, err := events.New(events.UserUpdated, "b1", "u1", at, events.User{UserID: "u1", Changed: []string{"emailAddress"}})
	require.NoError(t, err)
	assert.Equal(t, outbox.ChannelEvent, it.Channel)
	assert.Equal(t, "user.updated", it.Topic)
	assert.Equal(t, "b1", it.BrandID)
	assert.Equal(t, "u1", it.SubjectID)
	assert.True(t, strings.HasPrefix(it.ID, "evt_") && len(it.ID) == 36, it.ID)
	assert.True(t, at.Equal(it.CreatedAt))
	var body map[string]any
	require.NoError(t, json.Unmarshal(it.Payload, &body))
	assert.Equal(t, map[string]any{
		"id": it.ID, "type": "user.updated", "version": 1.0, "timestamp": "2026-11-29T01:40:00.123456Z",
		"brandId": "b1", "subjectId": "u1", "data": map[string]any{"userId": "u1", "changed": []any{"emailAddress"}},
	}, body)
	p, err := events.Decode(it.Payload)
	require.NoError(t, err)
	assert.Equal(t, events.UserUpdated, p.Type)

	_, err = events.New(events.UserCreated, "b1", "u1", at, func() {})
	assert.Error(t, err, "data that cannot be marshalled")
}

func TestTypesAreDistinctAndNamed(t *testing.T) {
	t.Parallel()
	seen := map[events.Type]bool{}
	for _, typ := range events.Types() {
		assert.False(t, seen[typ], typ)
		seen[typ] = true
		assert.Regexp(t, `^[a-z]+\.[a-z_]+$`, string(typ))
	}
	assert.Len(t, seen, 13)
	a, b := events.NewID(), events.NewID()
	assert.NotEqual(t, a, b)
}
