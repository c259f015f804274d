package client

// NOTE: a stream transport (TCP, unix sockets, stdio, any ReadWriteCloser).
// Writing is the sender's write combining (sender.go) with this package's
// framings; one reader goroutine (readLoop) cuts frames and delivers them.

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/coalesce"
)

const (
	// maxQueued bounds the bytes queued while a write is in progress.
	maxQueued = 4 << 20
	// maxKeptOut caps the write buffers kept between writes.
	maxKeptOut = coalesce.MaxKept
	// closeGrace is how long Close lets a write in progress finish.
	closeGrace = time.Second
)

type deadlineWriter interface {
	SetWriteDeadline(t time.Time) error
}

type stream struct {
	sender
	rwc  io.ReadWriteCloser
	kind frame.Kind
	wd   deadlineWriter // nil: no write timeout
	wt   time.Duration
}

// Dial connects to addr on the named network ("tcp", "tcp4", "tcp6",
// "unix", ...) with net.Dialer and returns a client on the connection, over
// TLS when Options.TLS is set. ctx bounds the dialing (and the TLS
// handshake) only.
func Dial(ctx context.Context, network, addr string, opts *Options) (*Client, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	nc, err := dialStream(ctx, network, addr, opts.tlsConfig())
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
	s := &stream{rwc: rw, kind: opts.framing()}
	s.init(s, rw, opts.maxMessage())
	if wd, ok := rw.(deadlineWriter); ok && opts.writeTimeout() > 0 && wd.SetWriteDeadline(time.Time{}) == nil {
		s.wd, s.wt = wd, opts.writeTimeout()
	}
	c := newClient(s, opts)
	s.c = c
	go s.readLoop()
	return c
}

func (s *stream) openFrame(b []byte) []byte {
	b, _ = frame.BeginFrame(b, s.kind)
	return b
}

func (s *stream) sealFrame(b []byte, mark, _ int) []byte { return frame.EndFrame(b, s.kind, mark) }

func (s *stream) writeOut(b []byte) error {
	if s.wd != nil {
		s.wd.SetWriteDeadline(time.Now().Add(s.wt))
	}
	_, err := s.rwc.Write(b)
	return err
}

func (s *stream) close() error {
	s.mu.Lock()
	s.closed = true
	idle := s.idleChan()
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
			s.mu.Lock()
			s.closed = true // a message sent from now on fails at once
			s.room.Broadcast()
			s.mu.Unlock()
			s.c.fail(lost(err))
			s.closeConn()
			return
		}
		s.c.deliver(st, msg)
	}
}
