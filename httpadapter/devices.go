package httpadapter

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
)

// UserDeviceStatus is whether a signed-in device was used lately: Online
// within auth.OnlineWindow of its last access, else Offline (jfw-js's
// UserDeviceStatus; its third value, Deleted, is never listed: an ended
// device leaves the list).
type UserDeviceStatus string

// The values of UserDeviceStatus.
const (
	DeviceOnline  UserDeviceStatus = "Online"
	DeviceOffline UserDeviceStatus = "Offline"
)

// DeviceUser is a device a user is signed in on, in the names of jfw-js's
// IDeviceUser.
type DeviceUser struct {
	ID string `json:"id"`
	// Code is the device's X-Device-Code, or the code the server made for
	// a login without one.
	Code string `json:"code"`
	Name string `json:"name"`
	// OSDevice is X-Os-Device, or the system read from the User-Agent;
	// "" when unknown.
	OSDevice string `json:"osDevice"`
	// AppVersionNumber is X-App-Version-Number; null when not sent.
	AppVersionNumber *string `json:"appVersionNumber"`
	// IsMobileApp is true for a device registered from the X-Device-*
	// headers (an app), false for one named from a browser's User-Agent.
	IsMobileApp      bool             `json:"isMobileApp"`
	UserDeviceStatus UserDeviceStatus `json:"userDeviceStatus"`
	// LastAccessAt is when the device was last used; null if never
	// recorded.
	LastAccessAt *string `json:"lastAccessAt"`
	CreatedDate  string  `json:"createdDate"`
}

// deviceUser returns d as DeviceUser at time now.
func deviceUser(d auth.Device, now time.Time) DeviceUser {
	du := DeviceUser{
		ID: d.ID, Code: d.Code, Name: d.Name, OSDevice: d.OS, IsMobileApp: d.IsMobileApp(),
		UserDeviceStatus: DeviceOffline, CreatedDate: d.CreatedAt.UTC().Format(integrations.DateLayout),
	}
	if d.AppVersion != "" {
		du.AppVersionNumber = &d.AppVersion
	}
	if !d.LastAccessAt.IsZero() {
		at := d.LastAccessAt.UTC().Format(integrations.DateLayout)
		du.LastAccessAt = &at
	}
	if d.Online(now) {
		du.UserDeviceStatus = DeviceOnline
	}
	return du
}

// listUserDevices answers GET /api/v1/users/{userId}/devices: the devices
// the user is signed in on, ?isMobileApp= filtering.
func (h *Handler) listUserDevices(w http.ResponseWriter, r *http.Request) {
	var mobile *bool
	if raw, ok := newQuery(r).get("isMobileApp"); ok {
		b, err := strconv.ParseBool(strings.TrimSpace(raw))
		if err != nil {
			h.fail(w, r, envelope.Invalid("The query is invalid.",
				envelope.Field("isMobileApp", "invalid_type", "isMobileApp must be true or false.")))
			return
		}
		mobile = &b
	}
	ctx := r.Context()
	devices, err := h.svc.Auth.DevicesOf(ctx, principalFrom(ctx), r.PathValue("userId"), mobile)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	now := h.rl.now()
	out := make([]DeviceUser, len(devices))
	for i, d := range devices {
		out[i] = deviceUser(d, now)
	}
	h.okNoStore(w, r, out)
}

// deleteUserDevice answers DELETE /api/v1/users/{userId}/devices/{deviceId}:
// the device's sessions end; data is true, as jfw-js reads it.
func (h *Handler) deleteUserDevice(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if _, err := h.svc.Auth.EndDeviceOf(ctx, principalFrom(ctx), r.PathValue("userId"), r.PathValue("deviceId")); err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, true)
}

// currentDevice answers GET /api/v1/devices/current: the device of the
// caller's Auth-Key.
func (h *Handler) currentDevice(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	d, err := h.svc.Auth.CurrentDevice(ctx, principalFrom(ctx))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, deviceUser(d, h.rl.now()))
}
