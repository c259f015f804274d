//go:build unix

package netserver

import (
	"errors"
	"net"
	"syscall"
)

// tryWriter writes to a socket without waiting (core.tryWrite): one per
// connection, made at its first such write, used by the flusher only.
type tryWriter struct {
	rc  syscall.RawConn // nil: the connection cannot (TLS, stdio)
	b   []byte
	n   int
	err error
	fn  func(fd uintptr) bool // write, made once
}

// tryWrite writes what the connection's socket takes of b now and
// returns how much; (0, nil) when the connection cannot be written
// without waiting. c.mu is not held; the caller claimed the output.
func (c *core) tryWrite(b []byte) (int, error) {
	w := c.tw
	if w == nil {
		w = &tryWriter{}
		w.fn = w.write
		if rc := rawConnOf(c.nc); rc != nil {
			w.rc = rc
		}
		c.tw = w
	}
	if w.rc == nil {
		return 0, nil
	}
	w.b, w.n, w.err = b, 0, nil
	if err := w.rc.Write(w.fn); err != nil && w.err == nil {
		w.err = err
	}
	n, err := w.n, w.err
	w.b, w.err = nil, nil
	return n, err
}

// write writes w.b to fd until the socket is full (syscall.RawConn.Write's
// callback, which never waits: it reports done).
func (w *tryWriter) write(fd uintptr) bool {
	for w.n < len(w.b) {
		k, err := syscall.Write(int(fd), w.b[w.n:])
		if k > 0 {
			w.n += k
		}
		switch {
		case err == syscall.EINTR:
			continue
		case errors.Is(err, syscall.EAGAIN):
			return true
		case err != nil:
			w.err = err
			return true
		case k <= 0:
			return true
		}
	}
	return true
}

// rawConnOf returns the socket of nc when bytes written to it go out as
// they are (TCP, Unix sockets; not TLS), else nil.
func rawConnOf(nc net.Conn) syscall.RawConn {
	if u, ok := nc.(interface{ UnsafeConn() net.Conn }); ok { // fasthttp's hijacked connection
		nc = u.UnsafeConn()
	}
	switch nc.(type) {
	case *net.TCPConn, *net.UnixConn:
	default:
		return nil
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}
