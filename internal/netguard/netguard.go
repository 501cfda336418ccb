// Package netguard keeps the service's outgoing connections (webhook
// deliveries, SMTP servers a caller names) out of the host's own network
// unless the host allows it: the address is checked on the connection
// itself, after the name resolved, so a name that resolves to a public
// address when checked and to a private one when dialled (DNS rebinding) is
// refused too.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// Policy says which addresses outside the public internet a connection may
// reach. The zero Policy allows public unicast addresses only.
type Policy struct {
	// AllowLoopback allows 127.0.0.0/8 and ::1 (development).
	AllowLoopback bool
	// AllowPrivate allows private (RFC 1918, fc00::/7), shared (100.64/10)
	// and link-local addresses: the host's own network.
	AllowPrivate bool
}

// ErrForbiddenAddress is the error of a connection refused by a [Policy];
// errors.Is matches it through the dialler's wrapping.
var ErrForbiddenAddress = errors.New("netguard: address not allowed")

// cgnat is the shared address space of RFC 6598.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// Check returns nil when p allows a connection to addr, else an error
// wrapping [ErrForbiddenAddress] that names the address.
func (p Policy) Check(addr netip.Addr) error {
	a := addr.Unmap()
	switch {
	case !a.IsValid(), a.IsUnspecified(), a.IsMulticast(), a.IsInterfaceLocalMulticast(),
		a == netip.AddrFrom4([4]byte{255, 255, 255, 255}), a.Is4() && a.As4()[0] == 0:
		return fmt.Errorf("%w: %s is not a unicast address", ErrForbiddenAddress, addr)
	case a.IsLoopback():
		if !p.AllowLoopback {
			return fmt.Errorf("%w: %s is a loopback address", ErrForbiddenAddress, addr)
		}
	case a.IsPrivate(), a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast(), cgnat.Contains(a):
		if !p.AllowPrivate {
			return fmt.Errorf("%w: %s is a private or link-local address", ErrForbiddenAddress, addr)
		}
	}
	return nil
}

// Dialer returns a dialer bounded by timeout whose every connection is
// checked by p on the address it connects to.
func (p Policy) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, Control: p.control}
}

// DialContext dials like [Policy.Dialer]'s dialer: for http.Transport and
// SMTP clients that take a dial function.
func (p Policy) DialContext(timeout time.Duration) func(ctx context.Context, network, address string) (net.Conn, error) {
	return p.Dialer(timeout).DialContext
}

func (p Policy) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %q is not an address", ErrForbiddenAddress, address)
	}
	return p.Check(ap.Addr())
}
