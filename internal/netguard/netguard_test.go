package netguard_test

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/netguard"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr                   string
		public, loopback, priv bool // allowed by the zero policy, with loopback, with private
	}{
		{"93.184.216.34", true, true, true},
		{"2606:2800:220:1::1", true, true, true},
		{"127.0.0.1", false, true, false},
		{"::1", false, true, false},
		{"::ffff:127.0.0.1", false, true, false},
		{"10.1.2.3", false, false, true},
		{"172.16.0.1", false, false, true},
		{"192.168.1.1", false, false, true},
		{"169.254.169.254", false, false, true},
		{"fe80::1", false, false, true},
		{"fd00::1", false, false, true},
		{"100.64.0.1", false, false, true},
		{"0.0.0.0", false, false, false},
		{"::", false, false, false},
		{"224.0.0.1", false, false, false},
		{"255.255.255.255", false, false, false},
		{"0.1.2.3", false, false, false},
	}
	for _, tc := range tests {
		a := netip.MustParseAddr(tc.addr)
		check := func(p netguard.Policy, want bool) {
			err := p.Check(a)
			if want {
				require.NoError(t, err, "%s under %+v", tc.addr, p)
			} else {
				require.ErrorIs(t, err, netguard.ErrForbiddenAddress, "%s under %+v", tc.addr, p)
			}
		}
		check(netguard.Policy{}, tc.public)
		check(netguard.Policy{AllowLoopback: true}, tc.loopback)
		check(netguard.Policy{AllowPrivate: true}, tc.priv)
	}
}

// TestDialerChecksTheConnectedAddress dials a listener on loopback by a
// name that resolves to it: refused without AllowLoopback, connected with.
func TestDialerChecksTheConnectedAddress(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = netguard.Policy{}.Dialer(time.Second).DialContext(ctx, "tcp", net.JoinHostPort("localhost", port))
	require.ErrorIs(t, err, netguard.ErrForbiddenAddress)
	c, err := netguard.Policy{AllowLoopback: true}.Dialer(time.Second).DialContext(ctx, "tcp", "127.0.0.1:"+port)
	require.NoError(t, err)
	c.Close()
}
