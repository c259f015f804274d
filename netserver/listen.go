package netserver

import (
	"context"
	"net"
	"syscall"
)

// ListenOptions configures Listen.
type ListenOptions struct {
	// ReusePort sets SO_REUSEPORT on the socket before it binds, so that
	// several processes (or listeners) on one host can bind the same
	// address and the kernel spreads the incoming connections among them.
	// Every listener of the group must set it. Supported on Linux, the BSDs
	// and macOS (on macOS the kernel does not balance: the newest listener
	// gets the connections); elsewhere Listen fails.
	ReusePort bool
}

// Listen announces on the local TCP address addr as net.Listen("tcp", addr)
// does, with the socket options of opts (nil: none). Serve the listener with
// Server.Serve or nethttp.HTTPServer.Serve.
func Listen(ctx context.Context, addr string, opts *ListenOptions) (net.Listener, error) {
	var lc net.ListenConfig
	if opts != nil && opts.ReusePort {
		lc.Control = ReusePort
	}
	return lc.Listen(ctx, "tcp", addr)
}

// ReusePort is a net.ListenConfig Control function that sets SO_REUSEPORT
// (see ListenOptions.ReusePort), for listeners one opens oneself.
func ReusePort(network, address string, c syscall.RawConn) error {
	var serr error
	if err := c.Control(func(fd uintptr) { serr = setReusePort(fd) }); err != nil {
		return err
	}
	if serr != nil {
		return &net.OpError{Op: "setsockopt SO_REUSEPORT", Net: network, Err: serr}
	}
	return nil
}
