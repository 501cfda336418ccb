package httpadapter

import (
	"net/http"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
)

// The account routes: the caller's own user, sign-up, password changes
// and resets, and the brand's public face, in the shapes of the spec's
// origin's client (jfw-js: src/features/user, src/features/brand).

// UserResult is the data of GET /api/v1/users/me and of a sign-up: the
// user as jfw-js's IUser names its fields, with the permissions it holds.
type UserResult struct {
	ID           string `json:"id"`
	BrandID      string `json:"brandId"`
	Username     string `json:"username"`
	EmailAddress string `json:"emailAddress"`
	PhoneNumber  string `json:"phoneNumber"`
	FirstName    string `json:"firstName"`
	LastName     string `json:"lastName"`
	NickName     string `json:"nickName"`
	Status       string `json:"status"`
	// CreatedDate is RFC 3339 with a numeric offset.
	CreatedDate string `json:"createdDate"`
	// Permissions are sorted and distinct; [] when none.
	Permissions []string `json:"permissions"`
}

// userResult returns u in the answer's shape.
func userResult(u auth.User) UserResult {
	perms := make([]string, len(u.Permissions))
	for i, p := range u.Permissions {
		perms[i] = string(p)
	}
	return UserResult{
		ID: u.ID, BrandID: u.BrandID, Username: u.Username, EmailAddress: u.EmailAddress, PhoneNumber: u.PhoneNumber,
		FirstName: u.FirstName, LastName: u.LastName, NickName: u.NickName, Status: string(u.Status),
		CreatedDate: u.CreatedAt.UTC().Format(integrations.DateLayout), Permissions: perms,
	}
}

// RegisterRequest is the body of POST /api/v1/users/register (jfw-js's
// IRegisterNewUserParams; referralCode is not served and ignored).
type RegisterRequest struct {
	Username     string `json:"username"`
	EmailAddress string `json:"emailAddress"`
	PhoneNumber  string `json:"phoneNumber"`
	Password     string `json:"password"`
	FirstName    string `json:"firstName"`
	LastName     string `json:"lastName"`
	NickName     string `json:"nickName"`
}

// CheckAuthKeyRequest is the body of POST
// /api/v1/users/check-auth-key-available.
type CheckAuthKeyRequest struct {
	AuthKey string `json:"authKey"`
}

// ChangePasswordRequest is the body of PUT /api/v1/users/change-password.
type ChangePasswordRequest struct {
	OldPassword     string `json:"oldPassword"`
	NewPassword     string `json:"newPassword"`
	ConfirmPassword string `json:"confirmPassword"`
}

// SetPasswordRequest is the body of PUT /api/v1/users/{id}/change-password;
// confirmPassword, which jfw-js sends, must equal newPassword when given.
type SetPasswordRequest struct {
	NewPassword     string `json:"newPassword"`
	ConfirmPassword string `json:"confirmPassword"`
}

// ForgotPasswordRequest is the body of POST /api/v1/users/forgot-password.
type ForgotPasswordRequest struct {
	EmailAddress      string `json:"emailAddress"`
	ResetPasswordLink string `json:"resetPasswordLink"`
}

// ResetPasswordRequest is the body of POST /api/v1/users/reset-password.
type ResetPasswordRequest struct {
	EmailAddress string `json:"emailAddress"`
	Token        string `json:"token"`
	NewPassword  string `json:"newPassword"`
}

// BrandResult is the data of GET /api/v1/brands/by-url: what a visitor of
// the brand may see of it.
type BrandResult struct {
	ID              string `json:"id"`
	URL             string `json:"url"`
	Name            string `json:"name"`
	Status          string `json:"status"`
	DefaultCurrency string `json:"defaultCurrency"`
	// RegistrationOpen says whether POST /api/v1/users/register is open.
	RegistrationOpen bool `json:"registrationOpen"`
}

// getMe answers GET /api/v1/users/me: the caller.
func (h *Handler) getMe(w http.ResponseWriter, r *http.Request) {
	u, err := h.svc.Auth.User(r.Context(), principalFrom(r.Context()).UserID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, userResult(u))
}

// checkAuthKey answers POST /api/v1/users/check-auth-key-available with
// true or false.
func (h *Handler) checkAuthKey(w http.ResponseWriter, r *http.Request) {
	var body CheckAuthKeyRequest
	if err := decodeJSON(w, r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	ok, err := h.svc.Auth.AuthKeyAvailable(r.Context(), brandFrom(r.Context()), body.AuthKey)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, ok)
}

// register answers POST /api/v1/users/register: 201 and the new user.
func (h *Handler) register(w http.ResponseWriter, r *http.Request) {
	var body RegisterRequest
	if err := decodeJSON(w, r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	u, err := h.svc.Auth.Register(r.Context(), brandFrom(r.Context()), auth.Registration{
		Username: body.Username, EmailAddress: body.EmailAddress, PhoneNumber: body.PhoneNumber,
		FirstName: body.FirstName, LastName: body.LastName, NickName: body.NickName, Password: body.Password,
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	h.writeEnvelope(w, r, envelope.Success(http.StatusCreated, "", userResult(u)))
}

// changePassword answers PUT /api/v1/users/change-password with a new
// pair for the caller; every other session of the user ends.
func (h *Handler) changePassword(w http.ResponseWriter, r *http.Request) {
	var body ChangePasswordRequest
	if err := decodeJSON(w, r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	p := principalFrom(r.Context())
	if !h.limitPasswordCheck(w, r, p.UserID) {
		return
	}
	sess, err := h.svc.Auth.ChangePassword(r.Context(), p, auth.PasswordChange{
		OldPassword: body.OldPassword, NewPassword: body.NewPassword, ConfirmPassword: body.ConfirmPassword,
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, authResult(sess))
}

// setPassword answers PUT /api/v1/users/{id}/change-password: an
// administrator sets another user's password.
func (h *Handler) setPassword(w http.ResponseWriter, r *http.Request) {
	var body SetPasswordRequest
	if err := decodeJSON(w, r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	err := h.svc.Auth.SetUserPassword(r.Context(), principalFrom(r.Context()), r.PathValue("id"),
		body.NewPassword, body.ConfirmPassword)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, true)
}

// forgotPassword answers POST /api/v1/users/forgot-password: true, known
// address or not.
func (h *Handler) forgotPassword(w http.ResponseWriter, r *http.Request) {
	var body ForgotPasswordRequest
	if err := decodeJSON(w, r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	err := h.svc.Auth.RequestPasswordReset(r.Context(), brandFrom(r.Context()), auth.PasswordResetRequest{
		EmailAddress: body.EmailAddress, ResetPasswordLink: body.ResetPasswordLink,
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, true)
}

// resetPassword answers POST /api/v1/users/reset-password.
func (h *Handler) resetPassword(w http.ResponseWriter, r *http.Request) {
	var body ResetPasswordRequest
	if err := decodeJSON(w, r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	err := h.svc.Auth.ResetPassword(r.Context(), brandFrom(r.Context()), auth.PasswordReset{
		EmailAddress: body.EmailAddress, Token: body.Token, NewPassword: body.NewPassword,
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okNoStore(w, r, true)
}

// brandByURL answers GET /api/v1/brands/by-url: the brand of Brand-URL,
// with a strong ETag.
func (h *Handler) brandByURL(w http.ResponseWriter, r *http.Request) {
	b := brandFrom(r.Context())
	bs, err := h.svc.Auth.BrandSettings(r.Context(), b.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	body, err := envelope.Marshal(envelope.Success(http.StatusOK, "", BrandResult{
		ID: b.ID, URL: b.URL, Name: b.Name, Status: string(b.Status), DefaultCurrency: b.DefaultCurrency,
		RegistrationOpen: bs.RegistrationOpen,
	}))
	if err != nil {
		h.fail(w, r, envelope.Internal(err))
		return
	}
	h.okEncoded(w, r, body, bodyETag(body), "no-cache")
}

// limitPasswordCheck charges a check of userID's password (a password
// change) to the login limits: the client IP's bucket (LoginPerIP) and the
// user's own (LoginPerIdentifier, the bucket its logins share), so that
// the change-password route is no way around them. It answers 429 and
// returns false when the request is refused.
func (h *Handler) limitPasswordCheck(w http.ResponseWriter, r *http.Request, userID string) bool {
	l := h.rl.limits
	if !l.LoginPerIP.IsZero() && !h.limit(w, r, l.LoginPerIP, h.rl.clientIP(r)) {
		return false
	}
	return l.LoginPerIdentifier.IsZero() || h.limit(w, r, l.LoginPerIdentifier, loginUserKey(userID))
}
