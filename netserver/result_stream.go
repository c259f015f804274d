package netserver

// NOTE: a streamed result (dispatch.StreamResult) on a connection of the
// core. A transport that can send one message in pieces (NDJSON: the line
// as it comes, then its newline; WebSocket: a text frame without FIN, then
// continuation frames) implements piecewise, and its calls are offered a
// resultStream. The first piece claims the connection's output
// (coalesce.Queue.Claim), waiting for a flush or another stream in
// progress, and writes what was queued before it; from then on the
// others' answers collect in c.out (the reader pauses at MaxPending as
// usual) and the pieces are written straight to the connection, outside
// the lock, until End releases the output and flushes what waited. A write
// that fails fails the connection (its handlers are cancelled: a client
// that went away ends the stream). A stream that cannot be completed (its
// handler failed after bytes went out) is cut off: the NDJSON connection
// is closed after logging, since no later byte could make the line valid;
// a WebSocket gets close 1011 in the middle of the message.

import (
	"errors"

	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/engineconn"
	"github.com/jetrpc/jetrpc/netserver/internal/seam"
)

// errStreamCut is why a connection whose streamed response was cut off
// closes.
var errStreamCut = errors.New("netserver: a streamed response was cut off (its handler failed)")

// piecewise is a transport that can send one message in pieces.
type piecewise interface {
	// piecewise reports whether the connection's framing can now (a
	// framing that needs the length first cannot).
	piecewise() bool
	// appendPiece appends b framed as a piece of one message: the first,
	// the last, or one between.
	appendPiece(dst, b []byte, first, last bool) []byte
	// cutOff returns the frame that ends the connection after a message
	// that cannot be completed (queued last), or nil to close it at once.
	cutOff() []byte
}

// initStreams offers the connection's calls a resultStream when its
// transport is piecewise.
func (c *core) initStreams() {
	if _, ok := c.t.(piecewise); ok {
		c.dc.SetStreamer(c)
	}
}

// Streamer returns a resultStream when the connection can send a message
// in pieces now, else nil (its result is then held): the
// engineconn.StreamSource of a piecewise transport's connections.
func (c *core) Streamer() engineconn.Streamer {
	if p := c.t.(piecewise); p.piecewise() {
		return &resultStream{c: c, p: p}
	}
	return nil
}

// resultStream sends one response in pieces (engineconn.Streamer).
type resultStream struct {
	c       *core
	p       piecewise
	claimed bool
	spare   []byte // the buffer Claim returned, for Release
	framed  []byte // a piece framed
}

// Piece writes b framed; the first piece claims the output.
func (s *resultStream) Piece(b []byte, first bool) error {
	if first {
		if err := s.claim(); err != nil {
			return err
		}
	}
	return s.write(s.p.appendPiece(s.framed[:0], b, first, false))
}

// End writes the last piece and releases the output, or cuts the message
// off.
func (s *resultStream) End(b []byte, ok bool) {
	c := s.c
	if !s.claimed {
		return
	}
	if ok {
		s.write(s.p.appendPiece(s.framed[:0], b, false, true))
		s.release(nil, false)
		return
	}
	c.lim.log.Warn("netserver: a streamed response was cut off (its handler failed); ending the connection",
		"remote", c.remote())
	s.release(s.p.cutOff(), true)
}

// claim waits until the output is free and claims it, writing what was
// queued before.
func (s *resultStream) claim() error {
	c := s.c
	c.mu.Lock()
	var queued []byte
	for {
		if !c.open() {
			c.mu.Unlock()
			return errStreamClosed(c)
		}
		var ok bool
		if queued, ok = c.out.Claim(); ok {
			break
		}
		c.senders++ // woken by every write's end (Written) and release
		c.cond.Wait()
		c.senders--
	}
	s.claimed = true
	c.mu.Unlock()
	s.spare = queued
	if len(queued) == 0 {
		return nil
	}
	err := c.t.write(queued)
	c.mu.Lock()
	c.Written(len(queued), err)
	c.mu.Unlock()
	return err
}

// write writes a framed piece outside the lock; a failure fails the
// connection.
func (s *resultStream) write(b []byte) error {
	s.framed = b[:0]
	c := s.c
	err := c.t.write(b)
	if err != nil {
		c.mu.Lock()
		c.failLocked(err)
		c.mu.Unlock()
	}
	return err
}

// release gives the output back and flushes what waited. After a cut-off
// (cut), last is queued as the connection's last frame, or, when nil, the
// connection is closed at once.
func (s *resultStream) release(last []byte, cut bool) {
	c := s.c
	c.mu.Lock()
	c.out.Release(s.spare)
	s.spare, s.framed = nil, nil
	if cut {
		if last == nil {
			c.failLocked(errStreamCut)
		} else if c.writable() {
			c.out.Out = append(c.out.Out, last...)
			c.addPending(int64(len(last)))
			c.sealed = true
			c.dc.Cancel() // their answers can no longer be written
		}
	}
	c.flushLocked()
	c.wake()
	c.cond.Broadcast() // other streams waiting to claim
	c.mu.Unlock()
}

// errStreamClosed is why a stream cannot start on c.
func errStreamClosed(c *core) error {
	if c.werr != nil {
		return c.werr
	}
	return ErrServerClosed
}

// Stream conns: NDJSON sends a line in pieces; header and len32 need the
// length first.

func (c *conn) piecewise() bool { return c.kind == frame.NDJSON }

func (c *conn) appendPiece(dst, b []byte, first, last bool) []byte {
	dst = append(dst, b...)
	if last {
		dst = append(dst, '\n')
	}
	return dst
}

func (c *conn) cutOff() []byte { return nil }

// Hosted conns (WebSocket): the transport says, through seam.Piecewise.

func (c *hosted) piecewise() bool {
	p, ok := c.x.(seam.Piecewise)
	return ok && p.Piecewise()
}

func (c *hosted) appendPiece(dst, b []byte, first, last bool) []byte {
	return c.x.(seam.Piecewise).AppendPiece(dst, b, first, last)
}

func (c *hosted) cutOff() []byte { return c.x.(seam.Piecewise).CutOff() }
