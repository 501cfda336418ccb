package mail

// WithImplicitTLSPort makes port, rather than 465, the port of implicit
// TLS: a test's server cannot listen on 465.
func WithImplicitTLSPort(port int) Option { return func(s *Service) { s.implicitPort = port } }
