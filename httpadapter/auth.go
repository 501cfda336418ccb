package httpadapter

import (
	"net/http"
	"time"

	"github.com/brandbase/brandbase/auth"
)

// LoginRequest is the body of POST /api/v1/users/auth. At least
// one of username and emailAddress is required; when both are given they
// must name the same user.
type LoginRequest struct {
	Username     string `json:"username"`
	EmailAddress string `json:"emailAddress"`
	Password     string `json:"password"`
}

// RefreshRequest is the body of POST /api/v1/users/auth/refresh-auth-key.
type RefreshRequest struct {
	RefreshAuthKey string `json:"refreshAuthKey"`
}

// AuthResult is the data of a successful login or refresh.
type AuthResult struct {
	ID             string `json:"id"`
	Username       string `json:"username"`
	EmailAddress   string `json:"emailAddress"`
	PhoneNumber    string `json:"phoneNumber"`
	AuthKey        string `json:"authKey"`
	RefreshAuthKey string `json:"refreshAuthKey"`
	// ExpiresIn is when authKey expires: RFC 3339 in UTC ("Z").
	ExpiresIn string `json:"expiresIn"`
	// DeviceCode is the code of the login's device: its X-Device-Code, or
	// the one the server made for a login without it. Sent as
	// X-Device-Code on a later login, it logs in from the same device and
	// gets that device's login allowance. Empty after a refresh.
	DeviceCode string `json:"deviceCode"`
}

func authResult(s auth.Session) AuthResult {
	return AuthResult{
		ID: s.User.ID, Username: s.User.Username, EmailAddress: s.User.EmailAddress, PhoneNumber: s.User.PhoneNumber,
		AuthKey: s.AuthKey, RefreshAuthKey: s.RefreshAuthKey, ExpiresIn: s.ExpiresAt.UTC().Format(time.RFC3339),
		DeviceCode: s.Device.Code,
	}
}

// okNoStore answers with data that must not be cached (key pairs).
func (h *Handler) okNoStore(w http.ResponseWriter, r *http.Request, data any) {
	w.Header().Set("Cache-Control", "no-store")
	h.ok(w, r, data)
}

// login answers POST /api/v1/users/auth: the X-Device-* headers
// register the device the login comes from.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	var body LoginRequest
	if err := decodeJSON(w, r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	req := auth.LoginRequest{
		Username: body.Username, EmailAddress: body.EmailAddress, Password: body.Password,
		Device: auth.DeviceInfo{
			Code: r.Header.Get("X-Device-Code"), Token: r.Header.Get("X-Device-Token"),
			Name: r.Header.Get("X-Device-Name"), AppVersion: r.Header.Get("X-App-Version-Number"),
			OS: r.Header.Get("X-Os-Device"), UserAgent: r.UserAgent(),
		},
	}
	if !h.limitLogin(w, r, req) {
		return
	}
	sess, err := h.svc.Auth.Login(r.Context(), brandFrom(r.Context()), req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, authResult(sess))
}

// refresh answers POST /api/v1/users/auth/refresh-auth-key with a new pair.
func (h *Handler) refresh(w http.ResponseWriter, r *http.Request) {
	var body RefreshRequest
	if err := decodeJSON(w, r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	sess, err := h.svc.Auth.Refresh(r.Context(), brandFrom(r.Context()), auth.RefreshRequest{
		RefreshAuthKey: body.RefreshAuthKey, DeviceCode: r.Header.Get("Device-Code"),
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, authResult(sess))
}

// logout answers DELETE /api/v1/users/auth: it revokes the caller's pair.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	if err := h.svc.Auth.Logout(r.Context(), principalFrom(r.Context())); err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, nil)
}
