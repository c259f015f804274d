package nethttp

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/rawio"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/internal/seam"
)

// A server that refuses a body over the limit answers 413 and closes the
// connection while the client may still be sending. Closing a socket with
// unread input makes the kernel send RST, and a client that is still
// writing then sees "connection reset" instead of the 413. So a connection
// marked by lingerOnClose first half-closes (the client sees the response
// and EOF), then reads and discards what the client still sends, for at most
// lingerTime and lingerBytes, and only then closes.
const (
	lingerTime  = time.Second
	lingerBytes = 64 << 20
)

// httpListener wraps accepted connections in httpConn and keeps the set of
// open ones, so that a Shutdown that runs out of time can close them.
type httpListener struct {
	net.Listener
	conns *httpConns
	s     *HTTPServer
}

func (l httpListener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	// A plain TCP or Unix connection is read and written with raw system
	// calls (rawio: no thread wake-up after the process was idle); TLS
	// and other wrappers through nc.
	c := &httpConn{Conn: nc, raw: rawio.Of(nc), set: l.conns, lim: &l.s.lim}
	// c.stream answers StreamKey while a POST is processed (http_stream.go).
	c.stream.Context = withOrigin(l.s.ctx, netserver.HTTP, nc.RemoteAddr())
	c.ctx = seam.WithTLS(&c.stream, nc)
	c.admitConn() // MaxConnsPerIP (http_guard.go)
	l.conns.add(c)
	c.lim.observe(netserver.HTTP, netserver.ConnOpened)
	return asHTTPS(c), nil
}

// httpConns is a set of open connections.
type httpConns struct {
	mu sync.Mutex
	m  map[*httpConn]struct{}
}

func (s *httpConns) add(c *httpConn) {
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[*httpConn]struct{})
	}
	s.m[c] = struct{}{}
	s.mu.Unlock()
}

func (s *httpConns) remove(c *httpConn) {
	s.mu.Lock()
	delete(s.m, c)
	s.mu.Unlock()
}

// closeAll closes every open connection at once, without lingering.
func (s *httpConns) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.m {
		seam.CloseNow(c.Conn)
		delete(s.m, c)
	}
}

// httpConn is a net.Conn whose Close can drain unread input first.
type httpConn struct {
	net.Conn
	// raw reads and writes Conn's socket when it is a plain TCP or Unix
	// one (nil: Conn does). fasthttp's goroutine for the connection is its
	// one reader and one writer, or after a hijack the WebSocket's reader
	// and the core's writer (tryWrite and WriteConn, one at a time), which
	// reach it through RawIO.
	raw    *rawio.Conn
	set    *httpConns
	ctx    context.Context // its requests' parent context, with their origin
	lim    *limits
	linger atomic.Bool
	closed atomic.Bool

	guard guard.ConnState // netserver.Options.Guard's state of the connection (http_guard.go)

	stream httpStream // streamed results of its requests (http_stream.go)
}

// Read reads the connection, with raw system calls when it has them.
func (c *httpConn) Read(p []byte) (int, error) {
	if c.raw != nil {
		return c.raw.Read(p)
	}
	return c.Conn.Read(p)
}

// Write writes the connection, with raw system calls when it has them.
func (c *httpConn) Write(p []byte) (int, error) {
	if c.raw != nil {
		return c.raw.Write(p)
	}
	return c.Conn.Write(p)
}

// RawIO returns the Conn that reads and writes the socket, or nil: through
// it rawio.Of and rawio.OfWriter (a hijacked connection's tryWrite, in
// netserver's core) use the same Conn as Read and Write.
func (c *httpConn) RawIO() *rawio.Conn { return c.raw }

// lingerOnClose makes Close drain the input first.
func (c *httpConn) lingerOnClose() { c.linger.Store(true) }

// Close closes the connection, draining it first if lingerOnClose was called.
func (c *httpConn) Close() error {
	c.set.remove(c)
	if !c.closed.Swap(true) {
		c.lim.observe(netserver.HTTP, netserver.ConnClosed)
		c.lim.sec.CloseHTTP(&c.guard)
	}
	if c.linger.Swap(false) {
		c.drain()
	}
	return c.Conn.Close()
}

func (c *httpConn) drain() { seam.LingerClose(c.Conn, lingerTime, lingerBytes) }

// withOrigin returns parent carrying the origin of a connection of
// transport t from remote.
func withOrigin(parent context.Context, t netserver.Transport, remote net.Addr) context.Context {
	return dispatch.WithOrigin(parent, dispatch.Origin{Transport: t.String(), Remote: remote})
}
