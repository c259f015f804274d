package client

// NOTE: the write side of the stream and WebSocket transports, shared:
// write combining (internal/coalesce, which the server's connections use
// too). begin takes mu and a caller appends its framed message to the
// queue (msg aliases q.Out until send or abort puts it back); in send, the
// caller that finds no flush running becomes the flusher and writes the
// queue outside the lock until it stays empty, while the others only
// append and return. So a lone call pays one write and no goroutine
// hand-off, and many concurrent calls share writes. The queue is bounded
// by maxQueued: past it, callers wait for the flusher. The transport
// supplies the framing and the writes (framer).
//
// With Options.Reconnect, a lost connection puts the sender down
// (reconnect.go): begin then waits for the next connection (or fails fast)
// instead of queueing, and install swaps the connection in once the
// flush on the old one has ended, so no byte meant for one connection is
// written on another.

import (
	"context"
	"io"
	"sync"

	"github.com/jetrpc/jetrpc/internal/coalesce"
)

// framer is what a transport gives its sender.
type framer interface {
	// openFrame appends the start of a frame (a header, or room for one).
	openFrame(b []byte) []byte
	// sealFrame completes the frame begun at b[mark] whose payload starts at
	// b[start]; mu is held.
	sealFrame(b []byte, mark, start int) []byte
	// writeOut writes b whole, within the transport's write timeout; mu
	// is not held.
	writeOut(b []byte) error
}

type sender struct {
	c   *Client
	f   framer
	max int

	mu     sync.Mutex
	room   sync.Cond      // signalled when a write ends
	q      coalesce.Queue // queued frames
	msg    outMsg         // the message being appended: q.Out, between begin and send
	closed bool           // nothing more may be queued
	err    error          // a write failed
	idle   chan struct{}  // closed when the flush in progress ends
	cc     *connCloser    // the connection

	// With Options.Reconnect (reconnect.go).
	redials  bool          // a lost connection is redialled
	failFast bool          // begin fails at once while down
	down     bool          // the connection is lost; a new one is being dialled
	up       chan struct{} // closed when down ends (nil: not down)

	readDone chan struct{} // closed when the reader goroutine ends
}

// connCloser closes one connection once.
type connCloser struct {
	c    io.Closer
	once sync.Once
	err  error
}

func (cc *connCloser) close() error {
	cc.once.Do(func() { cc.err = cc.c.Close() })
	return cc.err
}

func (s *sender) init(f framer, conn io.Closer, max int) {
	s.f, s.cc, s.max = f, &connCloser{c: conn}, max
	s.room.L = &s.mu
	s.readDone = make(chan struct{})
}

func (s *sender) stream() bool { return true }

func (s *sender) begin(ctx context.Context) (*outMsg, error) {
	s.mu.Lock()
	for {
		for s.q.Flushing() && len(s.q.Out) >= maxQueued && !s.closed && s.err == nil && !s.down {
			s.room.Wait()
		}
		lost := s.closed || s.err != nil || s.down
		if !lost {
			break
		}
		if !s.redials || s.c.closedErr() != nil {
			err := s.err
			s.mu.Unlock()
			return nil, s.closedErr(err)
		}
		// Lost, or about to be found lost by the reader: wait for the
		// next connection.
		if ctx == nil || s.failFast {
			s.mu.Unlock()
			return nil, ErrDisconnected
		}
		if s.up == nil {
			s.up = make(chan struct{})
		}
		up := s.up
		s.mu.Unlock()
		select {
		case <-up:
		case <-s.c.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
	}
	m := &s.msg
	m.b = s.q.Out
	m.mark = len(m.b)
	m.b = s.f.openFrame(m.b)
	m.start = len(m.b)
	return m, nil
}

// abort drops the frame begun by begin and releases mu.
func (s *sender) abort(m *outMsg) {
	s.q.Out = m.b[:m.mark]
	s.mu.Unlock()
}

// closedErr is the error of a message that cannot be sent any more.
func (s *sender) closedErr(writeErr error) error {
	if err := s.c.closedErr(); err != nil {
		return err
	}
	if writeErr != nil {
		if s.redials {
			return &connError{err: writeErr}
		}
		return lost(writeErr)
	}
	return ErrClosed
}

func (s *sender) send(_ context.Context, m *outMsg, _ []uint64) error {
	if len(m.b)-m.start > s.max {
		s.abort(m)
		return ErrTooLarge
	}
	s.q.Out = s.f.sealFrame(m.b, m.mark, m.start)
	return s.kick()
}

// kick writes out what is queued, unless a flush is running (which will).
// s.mu is held on entry and released on return.
func (s *sender) kick() error {
	if s.q.Flushing() {
		s.mu.Unlock()
		return nil
	}
	err := s.q.Flush(&s.mu, s)
	if s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
	s.mu.Unlock()
	if err != nil {
		if !s.redials {
			s.c.fail(lost(err))
		}
		s.closeConn() // the reader finds the connection lost
		return s.closedErr(err)
	}
	return nil
}

// WriteOut writes b for the flusher (coalesce.Sink); s.mu is not held.
func (s *sender) WriteOut(b []byte) error { return s.f.writeOut(b) }

// Written ends the flush after a failed write, which is sticky: what is
// queued is dropped (coalesce.Sink). s.mu is held.
func (s *sender) Written(_ int, err error) bool {
	s.room.Broadcast()
	if err != nil {
		s.err = err
		s.q.Out = s.q.Out[:0]
		return false
	}
	return true
}

// idleChan returns a channel closed when the flush in progress ends, or
// nil when none runs. s.mu must be held.
func (s *sender) idleChan() chan struct{} {
	if !s.q.Flushing() {
		return nil
	}
	if s.idle == nil {
		s.idle = make(chan struct{})
	}
	return s.idle
}

// closeConn closes the current connection.
func (s *sender) closeConn() error {
	s.mu.Lock()
	cc := s.cc
	s.mu.Unlock()
	return cc.close()
}
