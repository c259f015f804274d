//go:build unix

package rawio

import (
	"io"
	"net"
	"os"
	"syscall"
)

// Conn is a socket read and written with raw system calls (see the package
// doc). Make one with Of.
type Conn struct {
	nc net.Conn // for the errors
	rc syscall.RawConn
	r  op // Read's
	w  op // Write's and TryWrite's
}

// op is one direction's call in progress: the callback handed to
// syscall.RawConn, made once so that a call allocates nothing. The callback
// moves b past the bytes read or written, so that the call's count is what
// b lost (no count of its own: a Conn takes 144 bytes of every connection).
type op struct {
	b   []byte
	err error
	fn  func(fd uintptr) bool
	try bool // a write that stops when the socket is full
}

// Of returns a Conn over nc's socket when nc is a *net.TCPConn or a
// *net.UnixConn, else nil: TLS, pipes and wrappers are read and written
// through nc. A wrapper that reads and writes its socket through a Conn
// of its own, buffering nothing, hands that Conn out with a method
// RawIO() *Conn (nil: none); Of then returns it, so that each direction
// keeps one Conn (see the package doc).
func Of(nc net.Conn) *Conn {
	var sc syscall.Conn
	switch c := nc.(type) {
	case *net.TCPConn:
		sc = c
	case *net.UnixConn:
		sc = c
	case interface{ RawIO() *Conn }:
		return c.RawIO()
	default:
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	c := &Conn{nc: nc, rc: rc}
	c.r.fn = c.r.read
	c.w.fn = c.w.write
	return c
}

// OfWriter is Of for a Conn only written to: it also takes a connection
// that wraps its socket and hands it out with UnsafeConn (fasthttp's
// hijacked connections), which may have read input ahead and so must not be
// read around. The connection under it may itself hand out its Conn
// (RawIO, as for Of).
func OfWriter(nc net.Conn) *Conn {
	if u, ok := nc.(interface{ UnsafeConn() net.Conn }); ok {
		nc = u.UnsafeConn()
	}
	return Of(nc)
}

// maxRW bounds one system call, as internal/poll does.
const maxRW = 1 << 30

// Read reads into p as net.Conn's Read does: it waits for input (under the
// connection's read deadline), returns io.EOF at the end of input, and an
// error of the net package (errors.Is os.ErrDeadlineExceeded,
// net.ErrClosed) when the wait fails.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(p) > maxRW {
		p = p[:maxRW]
	}
	o := &c.r
	o.b, o.err = p, nil
	err := c.rc.Read(o.fn)
	n := len(p) - len(o.b)
	if err == nil && o.err != nil {
		err = c.opError("read", o.err)
	} else if err != nil {
		err = renameOp(err, "read")
	}
	o.b, o.err = nil, nil
	return n, err
}

// Write writes all of p as net.Conn's Write does, waiting (under the
// connection's write deadline) while the socket is full.
func (c *Conn) Write(p []byte) (int, error) {
	return c.write(p, false)
}

// TryWrite writes what the socket takes of p now and returns how much; it
// never waits. (n < len(p), nil): the socket is full.
func (c *Conn) TryWrite(p []byte) (int, error) {
	return c.write(p, true)
}

func (c *Conn) write(p []byte, try bool) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	o := &c.w
	o.b, o.err, o.try = p, nil, try
	err := c.rc.Write(o.fn)
	n := len(p) - len(o.b)
	if o.err != nil {
		err = c.opError("write", o.err)
	} else if err != nil {
		err = renameOp(err, "write")
	}
	o.b, o.err = nil, nil
	return n, err
}

// opError wraps the error of a system call as net.Conn does (io.EOF
// as it is).
func (c *Conn) opError(op string, err error) error {
	if err == io.EOF {
		return err
	}
	la := c.nc.LocalAddr()
	return &net.OpError{Op: op, Net: la.Network(), Source: la, Addr: c.nc.RemoteAddr(), Err: err}
}

// renameOp names a failed wait as net.Conn does: syscall.RawConn's
// errors say "raw-read" and "raw-write" where net.Conn's say "read" and
// "write" (a deadline, a closed connection), and servers log them.
func renameOp(err error, op string) error {
	if oe, ok := err.(*net.OpError); ok {
		oe.Op = op
	}
	return err
}

// read is the read callback: false asks the poller to wait for input.
func (o *op) read(fd uintptr) bool {
	for {
		n, e := sys(syscall.SYS_READ, fd, o.b)
		switch e {
		case 0:
			o.b = o.b[n:]
			if n == 0 {
				o.err = io.EOF
			}
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		o.err = os.NewSyscallError("read", e)
		return true
	}
}

// write is the write callback: false asks the poller to wait until the
// socket takes more (never for TryWrite).
func (o *op) write(fd uintptr) bool {
	for len(o.b) > 0 {
		b := o.b
		if len(b) > maxRW {
			b = b[:maxRW]
		}
		n, e := sys(syscall.SYS_WRITE, fd, b)
		switch e {
		case 0:
			if n <= 0 {
				o.err = io.ErrShortWrite
				return true
			}
			o.b = o.b[n:]
		case syscall.EINTR:
		case syscall.EAGAIN:
			return o.try
		default:
			o.err = os.NewSyscallError("write", e)
			return true
		}
	}
	return true
}
