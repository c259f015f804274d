package netserver

import (
	"io"
	"time"
)

// aLongTimeAgo is a deadline in the past: setting it interrupts a blocked
// read at once.
var aLongTimeAgo = time.Unix(1, 0)

// writeChunk is the most bytes given to one Write, so that WriteTimeout
// bounds a write that makes no progress rather than a long one that does.
const writeChunk = 256 << 10

// connReader is what a TCP connection's frame.Reader reads from. When a
// frame's first bytes came in one read and the frame needs more, it tightens
// the deadline from IdleTimeout to ReadTimeout.
type connReader struct {
	c       *conn
	got     bool // bytes arrived since the deadline was armed
	inFrame bool // the deadline armed is ReadTimeout
}

func (r *connReader) Read(p []byte) (int, error) {
	if r.got && !r.inFrame {
		r.inFrame = true
		if err := r.c.setReadDeadline(r.c.srv.readTimeout); err != nil {
			return 0, err
		}
	}
	n, err := r.c.nc.Read(p)
	if n > 0 {
		r.got = true
	}
	return n, err
}

// armRead sets the deadline of the read about to block (TCP only).
func (c *conn) armRead() error {
	if c.nc == nil {
		return nil
	}
	d := c.srv.idleTimeout
	c.rd.got, c.rd.inFrame = false, c.fr.Buffered() > 0
	if c.rd.inFrame {
		d = c.srv.readTimeout
	}
	return c.setReadDeadline(d)
}

// setReadDeadline sets the read deadline d from now (0: none) unless
// Shutdown stopped reading; under c.mu so that it never overrides stop's.
func (c *conn) setReadDeadline(d time.Duration) error {
	if c.srv.readTimeout <= 0 && c.srv.idleTimeout <= 0 {
		if c.stopping.Load() {
			return errStopped
		}
		return nil
	}
	var t time.Time
	if d > 0 {
		t = time.Now().Add(d)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping.Load() {
		return errStopped
	}
	c.nc.SetReadDeadline(t)
	return nil
}

// write writes b to the transport.
func (c *conn) write(b []byte) error {
	if c.nc == nil {
		_, err := c.w.Write(b)
		return err
	}
	wt := c.srv.writeTimeout
	for len(b) > 0 {
		n := min(len(b), writeChunk)
		if wt > 0 {
			c.nc.SetWriteDeadline(time.Now().Add(wt))
		}
		if _, err := c.nc.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// readDeadliner is a stdio reader that can take a deadline (a pollable
// *os.File, a net.Conn).
type readDeadliner interface {
	SetReadDeadline(t time.Time) error
}

// stop makes the reader stop at the next frame boundary (Shutdown).
func (c *conn) stop() {
	c.mu.Lock()
	c.stopping.Store(true)
	if c.nc != nil {
		c.nc.SetReadDeadline(aLongTimeAgo)
	}
	c.wake()
	c.mu.Unlock()
	if c.nc == nil {
		c.interruptStdio()
	}
}

// interruptStdio unblocks a stdio read: with a deadline if the reader takes
// one, else by closing it.
func (c *conn) interruptStdio() {
	if d, ok := c.r.(readDeadliner); ok && d.SetReadDeadline(aLongTimeAgo) == nil {
		return
	}
	if cl, ok := c.r.(io.Closer); ok {
		cl.Close()
	}
}

// abort ends the connection at once (Shutdown's context ended): handlers
// are cancelled, the transport closed, pending output dropped.
func (c *conn) abort() {
	c.mu.Lock()
	c.stopping.Store(true)
	if c.werr == nil {
		c.werr = ErrServerClosed
	}
	c.discardLocked()
	if c.cancel != nil {
		c.cancel()
	}
	if c.nc != nil {
		c.nc.Close()
	}
	c.wake()
	c.mu.Unlock()
	if c.nc == nil {
		c.interruptStdio()
	}
}
