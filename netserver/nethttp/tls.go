package nethttp

// NOTE: HTTPS. With Options.TLS, Serve wraps its listener as netserver's
// Server does (seam.ListenTLS); each accepted TLS connection is an
// httpsConn, through which fasthttp sees the TLS; its context carries
// netserver's TLS state (netserver.TLSState), filled in when the handshake
// is done (seam.Handshaken), before the first request is read.

import (
	"context"
	"crypto/tls"
	"net"

	"github.com/jetrpc/jetrpc/netserver/internal/seam"
)

// tlsConner is a connection with TLS: *tls.Conn, or netserver's tlsConn.
type tlsConner interface {
	net.Conn
	HandshakeContext(ctx context.Context) error
	ConnectionState() tls.ConnectionState
}

// httpsConn is an HTTP connection with TLS. fasthttp sees the TLS through
// Handshake and ConnectionState (RequestCtx.IsTLS, TLSConnectionState);
// the state goes into the connection's context when the handshake is done,
// which fasthttp asks for before it reads a request.
type httpsConn struct {
	*httpConn
	tc     tlsConner
	failed bool // the handshake failed (on fasthttp's goroutine, before Close)
}

// asHTTPS returns c as an httpsConn when its connection has TLS.
func asHTTPS(c *httpConn) net.Conn {
	if tc, ok := c.Conn.(tlsConner); ok {
		return &httpsConn{httpConn: c, tc: tc}
	}
	return c
}

// httpConnOf returns the httpConn under nc, an HTTPServer's connection.
func httpConnOf(nc net.Conn) (*httpConn, bool) {
	switch c := nc.(type) {
	case *httpConn:
		return c, true
	case *httpsConn:
		return c.httpConn, true
	}
	return nil, false
}

func (c *httpsConn) Handshake() error { return c.HandshakeContext(context.Background()) }

func (c *httpsConn) HandshakeContext(ctx context.Context) error {
	err := c.tc.HandshakeContext(ctx)
	if err == nil {
		c.handshaken()
	} else {
		c.failed = true
	}
	return err
}

// Close closes the connection, after lingerFailed if its handshake failed.
func (c *httpsConn) Close() error {
	if c.failed {
		c.failed = false
		seam.LingerFailed(c.tc)
	}
	return c.httpConn.Close()
}

func (c *httpsConn) ConnectionState() tls.ConnectionState { return c.tc.ConnectionState() }

// Read records the TLS state first, should fasthttp not have asked for
// the handshake.
func (c *httpsConn) Read(p []byte) (int, error) {
	if _, due := seam.TLSSlot(c.ctx); due {
		if err := c.Handshake(); err != nil {
			return 0, err
		}
	}
	return c.httpConn.Read(p)
}

// handshaken records the state after the handshake (on the connection's
// goroutine, before its first request is read).
func (c *httpsConn) handshaken() {
	if _, due := seam.TLSSlot(c.ctx); due {
		seam.Handshaken(c.ctx, c.tc.ConnectionState())
	}
}
