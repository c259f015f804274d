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
	c    *Client
	f    framer
	conn io.Closer
	max  int

	mu     sync.Mutex
	room   sync.Cond      // signalled when a write ends
	q      coalesce.Queue // queued frames
	msg    outMsg         // the message being appended: q.Out, between begin and send
	closed bool           // nothing more may be queued
	err    error          // a write failed
	idle   chan struct{}  // closed when the flush in progress ends

	closeOnce sync.Once
	closeErr  error
	readDone  chan struct{} // closed when the reader goroutine ends
}

func (s *sender) init(f framer, conn io.Closer, max int) {
	s.f, s.conn, s.max = f, conn, max
	s.room.L = &s.mu
	s.readDone = make(chan struct{})
}

func (s *sender) stream() bool { return true }

func (s *sender) begin() (*outMsg, error) {
	s.mu.Lock()
	for s.q.Flushing() && len(s.q.Out) >= maxQueued && !s.closed && s.err == nil {
		s.room.Wait()
	}
	if s.closed || s.err != nil {
		err := s.err
		s.mu.Unlock()
		return nil, s.closedErr(err)
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
		s.c.fail(lost(err))
		s.closeConn()
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

func (s *sender) closeConn() error {
	s.closeOnce.Do(func() { s.closeErr = s.conn.Close() })
	return s.closeErr
}
