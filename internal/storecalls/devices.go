package storecalls

import (
	"context"
	"github.com/brandbase/brandbase/outbox"
	"time"

	"github.com/brandbase/brandbase/auth"
)

// auth.DeviceStore

func (s *store) DeviceByID(ctx context.Context, userID, deviceID string) (auth.Device, error) {
	return call(ctx, s.rec, "DeviceByID", func(ctx context.Context) (auth.Device, error) {
		return s.b.DeviceByID(ctx, userID, deviceID)
	})
}

func (s *store) SignedInDevices(ctx context.Context, userID string, now time.Time) ([]auth.Device, error) {
	return call(ctx, s.rec, "SignedInDevices", func(ctx context.Context) ([]auth.Device, error) {
		return s.b.SignedInDevices(ctx, userID, now)
	})
}

func (s *store) EndDevice(ctx context.Context, userID, deviceID string, at time.Time, out ...outbox.Item) (auth.Device, error) {
	return call(ctx, s.rec, "EndDevice", func(ctx context.Context) (auth.Device, error) {
		return s.b.EndDevice(ctx, userID, deviceID, at, out...)
	})
}

func (s *store) TouchDevice(ctx context.Context, deviceID string, at, since time.Time) error {
	return call0(ctx, s.rec, "TouchDevice", func(ctx context.Context) error {
		return s.b.TouchDevice(ctx, deviceID, at, since)
	})
}
