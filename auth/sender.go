package auth

// MessageSender returns the host's sender ([WithMessageSender]), nil
// without one: the mail handler hands it the mail of a brand that has no
// SMTP integration of its own.
func (s *Service) MessageSender() MessageSender { return s.sender }
