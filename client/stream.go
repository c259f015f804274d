package client

// NOTE: a stream transport (TCP, unix sockets, stdio, any ReadWriteCloser).
// Writing uses write combining: begin takes mu and a sender appends its
// framed message to out; in send, the sender that finds no flush running
// becomes the flusher and writes out (swapped with spare) outside the lock,
// again and again until out stays empty, while the others only append and
// return. So a lone call pays one write and no goroutine hand-off, and many
// concurrent calls share writes. out is bounded by maxQueued: past it,
// senders wait for the flusher. One reader goroutine (readLoop) cuts frames
// and delivers them.

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/netserver/frame"
)

const (
	// maxQueued bounds the bytes queued while a write is in progress.
	maxQueued = 4 << 20
	// maxKeptOut caps the write buffers a stream keeps between writes.
	maxKeptOut = 256 << 10
	// closeGrace is how long Close lets a write in progress finish.
	closeGrace = time.Second
)

type deadlineWriter interface {
	SetWriteDeadline(t time.Time) error
}

type stream struct {
	c    *Client
	rwc  io.ReadWriteCloser
	kind frame.Kind
	max  int
	wd   deadlineWriter // nil: no write timeout
	wt   time.Duration

	mu       sync.Mutex
	room     sync.Cond // signalled when a write ends
	out      outMsg    // queued frames, then the message being appended
	spare    []byte
	flushing bool
	closed   bool
	err      error         // a write failed
	idle     chan struct{} // closed when the flush in progress ends

	closeOnce sync.Once
	closeErr  error
	readDone  chan struct{}
}

// Dial connects to addr on the named network ("tcp", "tcp4", "tcp6",
// "unix", ...) with net.Dialer and returns a client on the connection. ctx
// bounds the dialing only.
func Dial(ctx context.Context, network, addr string, opts *Options) (*Client, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return NewConn(nc, opts), nil
}

// NewConn returns a client speaking over rw, any byte stream, with the
// framing of opts. The client owns rw and closes it on Close. A write
// timeout applies when rw has a SetWriteDeadline method (a net.Conn).
// NewConn panics on an unknown Options.Framing.
func NewConn(rw io.ReadWriteCloser, opts *Options) *Client {
	if err := opts.check(); err != nil {
		panic(err.Error())
	}
	s := &stream{rwc: rw, kind: opts.framing(), max: opts.maxMessage(), readDone: make(chan struct{})}
	s.room.L = &s.mu
	if wd, ok := rw.(deadlineWriter); ok && opts.writeTimeout() > 0 && wd.SetWriteDeadline(time.Time{}) == nil {
		s.wd, s.wt = wd, opts.writeTimeout()
	}
	c := newClient(s, opts)
	s.c = c
	go s.readLoop()
	return c
}

func (s *stream) stream() bool { return true }

func (s *stream) begin() (*outMsg, error) {
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
	m.b, _ = frame.BeginFrame(m.b, s.kind)
	m.start = len(m.b)
	return m, nil
}

// closedErr is the error of a message that cannot be sent any more.
func (s *stream) closedErr(writeErr error) error {
	if err := s.c.closedErr(); err != nil {
		return err
	}
	if writeErr != nil {
		return lost(writeErr)
	}
	return ErrClosed
}

func (s *stream) send(_ context.Context, m *outMsg, _ []uint64) error {
	if len(m.b)-m.start > s.max {
		m.b = m.b[:m.mark]
		s.mu.Unlock()
		return ErrTooLarge
	}
	m.b = frame.EndFrame(m.b, s.kind, m.mark)
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
func (s *stream) flush() error {
	for len(s.out.b) > 0 {
		buf := s.out.b
		s.out.b, s.spare = s.spare[:0], nil
		s.mu.Unlock()
		if s.wd != nil {
			s.wd.SetWriteDeadline(time.Now().Add(s.wt))
		}
		_, err := s.rwc.Write(buf)
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

func (s *stream) close() error {
	s.mu.Lock()
	s.closed = true
	var idle chan struct{}
	if s.flushing {
		idle = make(chan struct{})
		s.idle = idle
	}
	s.room.Broadcast()
	s.mu.Unlock()
	if idle != nil {
		t := time.NewTimer(closeGrace)
		select {
		case <-idle:
		case <-t.C:
		}
		t.Stop()
	}
	err := s.closeConn()
	<-s.readDone
	return err
}

func (s *stream) closeConn() error {
	s.closeOnce.Do(func() { s.closeErr = s.rwc.Close() })
	return s.closeErr
}

// readLoop delivers the frames read until the stream fails or is closed,
// then closes the client.
func (s *stream) readLoop() {
	defer close(s.readDone)
	st := newInState(s.max)
	fr := frame.NewReader(s.rwc, s.kind, s.max)
	for {
		msg, err := fr.Next()
		if err != nil {
			var tl *frame.TooLargeError
			if errors.As(err, &tl) {
				e := *tl
				err = &e
			}
			s.c.fail(lost(err))
			s.closeConn()
			return
		}
		s.c.deliver(st, msg)
	}
}
