package load

import (
	"context"
	"crypto/tls"
	"net"
)

// dialer dials a stream connection: net.Dialer, or tls.Dialer (which
// finishes the handshake before it returns).
type dialer interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

// streamDialer returns the dialer of the run's TCP connections.
func (r *run) streamDialer() dialer {
	nd := &net.Dialer{Timeout: r.cfg.Timeout}
	if r.cfg.TLS != nil {
		return &tls.Dialer{NetDialer: nd, Config: r.cfg.TLS}
	}
	return nd
}

// scheme returns plain, or plain+"s" with TLS ("https").
func (r *run) scheme(plain string) string {
	if r.cfg.TLS != nil {
		return plain + "s"
	}
	return plain
}
