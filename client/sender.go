package client

// NOTE: the write side of the stream and WebSocket transports, shared:
// write combining. begin takes mu and a caller appends its framed message to
// out; in send, the caller that finds no flush running becomes the flusher
// and writes out (swapped with spare) outside the lock, again and again
// until out stays empty, while the others only append and return. So a lone
// call pays one write and no goroutine hand-off, and many concurrent calls
// share writes. out is bounded by maxQueued: past it, callers wait for the
// flusher. The transport supplies the framing and the writes (framer).

import (
	"context"
	"io"
	"sync"
	"time"
)

// framer is what a transport gives its sender.
type framer interface {
	// openFrame appends the start of a frame (a header, or room for one).
	openFrame(b []byte) []byte
	// sealFrame completes the frame begun at b[mark] whose payload starts at
	// b[start]; mu is held.
	sealFrame(b []byte, mark, start int) []byte
	// writeDeadline is the deadline of a write starting now (zero: none);
	// mu is held.
	writeDeadline() time.Time
	// writeOut writes b whole by dl; mu is not held.
	writeOut(b []byte, dl time.Time) error
}

type sender struct {
	c    *Client
	f    framer
	conn io.Closer
	max  int

	mu       sync.Mutex
	room     sync.Cond // signalled when a write ends
	out      outMsg    // queued frames, then the message being appended
	spare    []byte
	flushing bool
	closed   bool          // nothing more may be queued
	err      error         // a write failed
	idle     chan struct{} // closed when the flush in progress ends

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
	for s.flushing && len(s.out.b) >= maxQueued && !s.closed && s.err == nil {
		s.room.Wait()
	}
	if s.closed || s.err != nil {
		err := s.err
		s.mu.Unlock()
		return nil, s.closedErr(err)
	}
	m := &s.out
	m.mark = len(m.b)
	m.b = s.f.openFrame(m.b)
	m.start = len(m.b)
	return m, nil
}

// abort drops the frame begun by begin and releases mu.
func (s *sender) abort(m *outMsg) {
	m.b = m.b[:m.mark]
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
		m.b = m.b[:m.mark]
		s.mu.Unlock()
		return ErrTooLarge
	}
	m.b = s.f.sealFrame(m.b, m.mark, m.start)
	return s.kick()
}

// kick writes out what is queued, unless a flush is running (which will).
// s.mu is held on entry and released on return.
func (s *sender) kick() error {
	if s.flushing {
		s.mu.Unlock()
		return nil
	}
	s.flushing = true
	err := s.flush()
	s.flushing = false
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

// flush writes out until it stays empty. s.mu is held on entry and on
// return, but not during the writes.
func (s *sender) flush() error {
	for len(s.out.b) > 0 {
		buf := s.out.b
		s.out.b, s.spare = s.spare[:0], nil
		dl := s.f.writeDeadline()
		s.mu.Unlock()
		err := s.f.writeOut(buf, dl)
		s.mu.Lock()
		if cap(buf) <= maxKeptOut {
			s.spare = buf[:0]
		}
		s.room.Broadcast()
		if err != nil {
			s.err = err
			s.out.b = s.out.b[:0]
			return err
		}
	}
	return nil
}

// idleChan returns a channel closed when the flush in progress ends, or
// nil when none runs. s.mu must be held.
func (s *sender) idleChan() chan struct{} {
	if !s.flushing {
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
