package a2a

import (
	"context"
	"net/netip"
)

// NewPusherExempt is NewPusher whose guard lets the addresses exempt names
// through: a test's stand-in for a public webhook on 127.0.0.1.
func NewPusherExempt(opts *PusherOptions, exempt func(netip.AddrPort) bool) *Pusher {
	return newPusher(opts, exempt)
}

// SetLookup replaces how s resolves a webhook's host when a config is set
// (a test's DNS, to play a rebinding).
func SetLookup(s *Server, f func(ctx context.Context, host string) ([]netip.Addr, error)) {
	s.lookupHost = f
}
