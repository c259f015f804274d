package client

import (
	"context"
	"crypto/tls"
	"net"
)

func (o *Options) tlsConfig() *tls.Config {
	if o == nil {
		return nil
	}
	return o.TLS
}

// dialStream dials a stream connection: over TLS with cfg (the handshake
// done within ctx), plain for nil.
func dialStream(ctx context.Context, network, addr string, cfg *tls.Config) (net.Conn, error) {
	if cfg != nil {
		d := tls.Dialer{Config: cfg}
		return d.DialContext(ctx, network, addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}
