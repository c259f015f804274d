package client

// NOTE: a stream transport (TCP, unix sockets, stdio, any ReadWriteCloser).
// Writing is the sender's write combining (sender.go) with this package's
// framings; one reader goroutine (readLoop) cuts frames and delivers them.

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/coalesce"
	"github.com/jetrpc/jetrpc/internal/rawio"
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
	raw  *rawio.Conn   // rwc's socket, read and written with raw system calls; nil: through rwc
	fr   *frame.Reader // of rwc
	kind frame.Kind
	wd   deadlineWriter // nil: no write timeout
	wt   time.Duration
	dial func(ctx context.Context) (io.ReadWriteCloser, error) // nil: no redial
	tok  TokenFunc
}

// dialTimeout bounds a redial and the rpc.authenticate call of NewStdio.
const dialTimeout = 10 * time.Second

// Dial connects to addr on the named network ("tcp", "tcp4", "tcp6",
// "unix", ...) with net.Dialer and returns a client on the connection, over
// TLS when Options.TLS is set. ctx bounds the dialing (and the TLS
// handshake, and the rpc.authenticate call of Options.Token) only. With
// Options.Reconnect the client dials addr again whenever the connection is
// lost.
func Dial(ctx context.Context, network, addr string, opts *Options) (*Client, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	cfg := opts.tlsConfig()
	dial := func(ctx context.Context) (io.ReadWriteCloser, error) { return dialStream(ctx, network, addr, cfg) }
	s := newStream(opts)
	rwc, err := dial(ctx)
	if err == nil {
		err = s.open(ctx, rwc)
	}
	if err != nil {
		return nil, err
	}
	if opts.reconnect() != nil {
		s.dial = dial
	}
	return s.start(opts), nil
}

// NewConn returns a client speaking over rw, any byte stream, with the
// framing of opts. The client owns rw and closes it on Close. A write
// timeout applies when rw has a SetWriteDeadline method (a net.Conn).
// NewConn sends no credential (Options.Token) and does not reconnect.
// NewConn panics on an unknown Options.Framing or header line.
func NewConn(rw io.ReadWriteCloser, opts *Options) *Client {
	if err := opts.check(); err != nil {
		panic(err.Error())
	}
	s := newStream(opts)
	s.tok = nil
	s.open(context.Background(), rw)
	return s.start(opts)
}

func newStream(opts *Options) *stream {
	s := &stream{kind: opts.framing(), wt: opts.writeTimeout(), tok: opts.token()}
	s.max = opts.maxMessage()
	return s
}

// open readies the connection rw (authenticating it when asked to) and
// makes it the stream's: before the client starts, or, redialled, while
// the stream is down (install).
func (s *stream) open(ctx context.Context, rw io.ReadWriteCloser) error {
	var raw *rawio.Conn
	var src io.Reader = rw
	if nc, ok := rw.(net.Conn); ok {
		if raw = rawio.Of(nc); raw != nil {
			src = raw // no wake-up of the runtime's monitor after idling (rawio)
		}
	}
	fr := frame.NewReader(src, s.kind, s.max)
	fr.SetDivert(s.divert) // results over MaxMessage of CallTo's calls (callto.go)
	if s.tok != nil {
		drw, ok := rw.(deadlineReadWriter)
		if !ok {
			rw.Close()
			return errors.New("client: Options.Token: the stream takes no deadlines")
		}
		if err := authenticate(ctx, drw, fr, s.kind, s.tok); err != nil {
			rw.Close()
			return err
		}
	}
	var wd deadlineWriter
	if w, ok := rw.(deadlineWriter); ok && s.wt > 0 && w.SetWriteDeadline(time.Time{}) == nil {
		wd = w
	}
	if s.c == nil { // not started yet
		s.rwc, s.raw, s.fr, s.wd = rw, raw, fr, wd
		return nil
	}
	return s.install(rw, func() { s.rwc, s.raw, s.fr, s.wd = rw, raw, fr, wd })
}

// start makes the client of an opened stream and starts its reader.
func (s *stream) start(opts *Options) *Client {
	s.init(s, s.rwc, s.max)
	c := newClient(s, opts)
	s.c = c
	if s.dial != nil {
		s.enableRedial(opts.reconnect())
	}
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
	if s.raw != nil {
		_, err := s.raw.Write(b)
		return err
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
// then closes the client, or, with Options.Reconnect, redials and goes on.
func (s *stream) readLoop() {
	defer close(s.readDone)
	st := newInState(s.max)
	for {
		s.mu.Lock()
		fr := s.fr
		s.mu.Unlock()
		err := s.read(st, fr)
		if !s.redials || s.c.closedErr() != nil {
			s.mu.Lock()
			s.closed = true // a message sent from now on fails at once
			s.room.Broadcast()
			s.mu.Unlock()
		}
		redial := s.lose(err)
		s.closeConn()
		if !redial || !s.redialLoop(s.redial) {
			return
		}
	}
}

// read delivers the frames of fr until it fails; it returns the error.
func (s *stream) read(st *inState, fr *frame.Reader) error {
	for {
		if len(st.later.fs) > 0 && !fr.Ready() {
			st.later.run() // before a read that may wait
		}
		msg, err := fr.Next()
		if err != nil {
			st.later.run()
			var tl *frame.TooLargeError
			if errors.As(err, &tl) {
				e := *tl
				err = &e
			}
			return err
		}
		s.c.deliver(st, msg)
	}
}

// redial dials the stream's address again and installs the connection.
func (s *stream) redial(ctx context.Context) error {
	rwc, err := s.dial(ctx)
	if err != nil {
		return err
	}
	return s.open(ctx, rwc)
}
