package netserver

// NOTE: TLS. With Options.TLS, Server.Serve and nethttp's Serve wrap their
// listener in a tlsListener, whose connections are tlsConns (a tls.Conn that
// closes without a close_notify once a write failed). A connection from a
// listener of the caller's own that yields *tls.Conn is served with TLS
// just the same. Neither Accept handshakes: the handshake runs on the
// connection's goroutine, before its first message (TCP: conn.handshake,
// within ReadTimeout; HTTP: fasthttp calls nethttp's httpsConn.Handshake,
// within its ReadTimeout, which fills in the state through the seam). Each TLS connection's context carries a tlsCtx, made at
// accept and filled in when the handshake is done, before anything is read
// from it; TLSState reads it.

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync/atomic"
	"time"
)

// TLSState returns the TLS state of the connection that the messages
// processed under ctx came over: a TCP connection or an HTTP request served
// with TLS (Options.TLS, or a listener that yields *tls.Conn), a WebSocket
// upgraded from one, or a request over TLS to nethttp.Handler. It is nil
// without TLS. When the client presented a certificate, PeerCertificates
// and VerifiedChains hold it. The state must not be changed.
//
// It is the TLS counterpart of dispatch.OriginOf; it lives here rather than
// in dispatch.Origin so that a program that only uses the engine does not
// link crypto/tls.
func TLSState(ctx context.Context) *tls.ConnectionState {
	if t, _ := ctx.Value(tlsStateKey{}).(*tlsCtx); t != nil && t.done {
		return &t.st
	}
	return nil
}

type tlsStateKey struct{}

// tlsCtx carries a connection's TLS state once its handshake is done.
type tlsCtx struct {
	context.Context
	st   tls.ConnectionState
	done bool // st is set; written before the connection's first message
}

func (c *tlsCtx) Value(key any) any {
	if _, ok := key.(tlsStateKey); ok {
		return c
	}
	return c.Context.Value(key)
}

// tlsConner is a connection with TLS: *tls.Conn, tlsConn or nethttp's httpsConn.
type tlsConner interface {
	net.Conn
	HandshakeContext(ctx context.Context) error
	ConnectionState() tls.ConnectionState
}

// withTLS returns parent carrying nc's TLS state when nc has TLS (filled in
// at once when its handshake is done already), else parent.
func withTLS(parent context.Context, nc net.Conn) context.Context {
	tc, ok := nc.(tlsConner)
	if !ok {
		return parent
	}
	t := &tlsCtx{Context: parent}
	if st := tc.ConnectionState(); st.HandshakeComplete {
		t.st, t.done = st, true
	}
	return t
}

// withTLSState returns parent carrying st (nil: parent).
func withTLSState(parent context.Context, st *tls.ConnectionState) context.Context {
	if st == nil {
		return parent
	}
	return &tlsCtx{Context: parent, st: *st, done: true}
}

// tlsCtxOf returns the tlsCtx of ctx, nil if none.
func tlsCtxOf(ctx context.Context) *tlsCtx {
	t, _ := ctx.Value(tlsStateKey{}).(*tlsCtx)
	return t
}

// serverTLS returns the configuration a server serves with: a copy of cfg
// with MinVersion raised to TLS 1.2 at least; nil for nil.
func serverTLS(cfg *tls.Config) *tls.Config {
	if cfg == nil {
		return nil
	}
	c := cfg.Clone()
	c.MinVersion = max(c.MinVersion, tls.VersionTLS12)
	return c
}

// tlsListener yields the connections of a listener as tlsConns.
type tlsListener struct {
	net.Listener
	cfg *tls.Config
}

// listenTLS returns ln wrapped to serve TLS with cfg, or ln for nil.
func listenTLS(ln net.Listener, cfg *tls.Config) net.Listener {
	if cfg == nil {
		return ln
	}
	return tlsListener{Listener: ln, cfg: cfg}
}

func (l tlsListener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &tlsConn{Conn: tls.Server(nc, l.cfg)}, nil
}

// tlsConn is a server's TLS connection. Once a write failed (a timeout: the
// peer stopped reading) Close closes the connection under it at once:
// tls.Conn.Close would first try to write a close_notify alert, which can
// block for up to 5 s on that peer.
type tlsConn struct {
	*tls.Conn
	broken atomic.Bool
}

func (c *tlsConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if err != nil {
		c.broken.Store(true)
	}
	return n, err
}

func (c *tlsConn) Close() error {
	if c.broken.Load() {
		return c.NetConn().Close()
	}
	return c.Conn.Close()
}

// errHandshake wraps a failed TLS handshake.
var errHandshake = errors.New("netserver: TLS handshake failed")

// handshakeTimeout bounds a TCP connection's TLS handshake: ReadTimeout,
// else IdleTimeout, else none.
func (l *limits) handshakeTimeout() time.Duration {
	if l.readTimeout > 0 {
		return l.readTimeout
	}
	return l.idleTimeout
}

// handshake runs a TCP connection's TLS handshake, once, before its first
// read, and records the state for TLSState. It does nothing without TLS.
func (c *conn) handshake() error {
	tc, ok := c.nc.(tlsConner)
	if !ok {
		return nil
	}
	t := tlsCtxOf(c.dc.Context())
	if t == nil || t.done {
		return nil
	}
	d := c.lim.handshakeTimeout()
	if err := c.setReadDeadline(d); err != nil { // Shutdown came first
		return err
	}
	tc.SetWriteDeadline(deadline(d))
	err := tc.HandshakeContext(context.Background()) // Shutdown interrupts it with the read deadline
	tc.SetWriteDeadline(time.Time{})
	if err != nil {
		if c.stopping.Load() {
			return errStopped
		}
		c.lim.log.Info("netserver: TLS handshake failed", "remote", c.remote(), "err", err)
		lingerFailed(c.nc)
		return errors.Join(errHandshake, err)
	}
	t.st, t.done = tc.ConnectionState(), true
	return nil
}

// lingerFailed half-closes a connection whose handshake failed, after the
// alert that says why, and drains it briefly before it is closed. Under TLS
// 1.3 a client finishes its side of the handshake before the server judges
// its certificate and may send its first request at once: closing with that
// request unread would reset the connection, and the client would see
// "connection reset" instead of the alert ("certificate required").
func lingerFailed(nc net.Conn) {
	if r, ok := nc.(interface{ NetConn() net.Conn }); ok {
		lingerClose(r.NetConn(), drainTime, 64<<10)
	}
}

// closeNow closes nc at once: a TLS connection without its close_notify
// alert, whose write could block on a peer that does not read.
func closeNow(nc net.Conn) error {
	switch c := nc.(type) {
	case *tlsConn:
		return c.NetConn().Close()
	case *tls.Conn:
		return c.NetConn().Close()
	}
	return nc.Close()
}
