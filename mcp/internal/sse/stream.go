// Package sse is one event stream of mcp's Streamable HTTP endpoint: its
// events, their storage in a streamstore.Store, and the writer of the
// connection attached to it. The endpoint owns the streams; a stream sees
// its session and its call only through the small interfaces below.
package sse

// NOTE: one SSE event stream of the Streamable HTTP endpoint: a request's
// (POST) or a session's standalone one (GET). Producers (the handlers'
// sends, the final response) append events under s.mu: each is numbered,
// encoded once ("id: STREAM-SEQ\ndata: MESSAGE\n\n"), stored in the
// EventStore when the stream is resumable, and queued in s.pending while a
// connection is attached. The connection's writer (Serve, on fasthttp's
// goroutine for the response) takes what is pending and writes it, until
// the final event is written, the connection fails, the stream is cut
// (CloseSSEStream) or taken over by a resuming connection (a newer
// generation), or the session or the server ends. A resumable stream
// outlives its connections: a GET with Last-Event-ID attaches a new one,
// which gets the stored events after that id, then the live ones; the lock
// makes the two meet without a gap or a duplicate.
//
// The endpoint numbers each stream's events itself (Seq from 1; the
// priming event is 0 and is not stored) and appends each event's SSE bytes
// to the EventStore (a streamstore.Store) before it writes them, so that
// what a client missed is in the store whichever connection, or replica,
// it comes back on. The store's Key is the session id and the stream id,
// the first part of the event ids, so Last-Event-ID names it.

import (
	"bufio"
	"context"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/internal/pool"
	"github.com/jetrpc/jetrpc/streamstore"
)

// Config is what the streams of one endpoint share.
type Config struct {
	Ctx          context.Context   // of the store's calls
	Store        streamstore.Store // keeps the events of resumable streams
	Log          *slog.Logger
	Retry        time.Duration   // the priming event's retry:
	KeepAlive    time.Duration   // a silent connection gets a comment line after this
	WriteTimeout time.Duration   // bounds each write
	MaxPending   int             // bytes queued for a slow reader before its connection is dropped
	Done         <-chan struct{} // closed when the endpoint shuts down: writers return
}

// Session is the session of a resumable stream.
type Session interface {
	// ID is the session's id, the store key's first part.
	ID() string
	// Ended is closed when the session ends.
	Ended() <-chan struct{}
	// Hold marks the session busy while a writer runs; Unhold ends that
	// and touches it.
	Hold()
	Unhold()
}

// Owner is the call of a stream that cannot be resumed: the stream holds
// it until the stream ends, and cancels it when its connection was lost
// before the response.
type Owner interface {
	Cancel() bool
	Release()
}

// Stream is one event stream.
type Stream struct {
	cfg        *Config
	sess       Session // nil: not resumable (stateless, Modern)
	sid        string  // sess.ID()
	id         uint64
	prime      bool // connections begin with a priming event (2025-11-25 on)
	standalone bool

	mu      sync.Mutex
	seq     uint64
	pending []byte
	spare   []byte
	gen     uint64 // the attached connection; 0: none
	lastGen uint64
	final   bool // the final event is queued or stored
	done    bool // the final event was written, or the stream was given up
	cut     bool
	wake    chan struct{}
	owner   Owner // a non-resumable stream's call, held until the stream ends: a lost connection cancels it
}

// New returns stream id of sess (nil: not resumable); prime: its
// connections begin with a priming event.
func New(cfg *Config, sess Session, id uint64, prime, standalone bool) *Stream {
	s := &Stream{cfg: cfg, sess: sess, id: id, prime: prime, standalone: standalone,
		wake: make(chan struct{}, 1)}
	if sess != nil {
		s.sid = sess.ID()
	}
	return s
}

// ID returns the stream's id.
func (s *Stream) ID() uint64 { return s.id }

// Prime reports whether its connections begin with a priming event.
func (s *Stream) Prime() bool { return s.prime }

// SetOwner makes c the stream's call (see Owner).
func (s *Stream) SetOwner(c Owner) {
	s.mu.Lock()
	s.owner = c
	s.mu.Unlock()
}

// Busy reports whether a connection is attached.
func (s *Stream) Busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen != 0
}

// Done reports whether the stream's final event was written (or the
// stream given up).
func (s *Stream) Done() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

func (s *Stream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Stream) key() streamstore.Key { return streamstore.Key{Session: s.sid, Stream: s.id} }

// AppendID appends the id of event seq of stream id.
func AppendID(dst []byte, id, seq uint64) []byte {
	dst = strconv.AppendUint(dst, id, 16)
	return strconv.AppendUint(append(dst, '-'), seq, 10)
}

// ParseEventID parses an event id made by AppendID.
func ParseEventID(b []byte) (id, seq uint64, ok bool) {
	i := len(b) - 1
	for i >= 0 && b[i] != '-' {
		i--
	}
	if i <= 0 || i > 16 || i == len(b)-1 || len(b)-i > 21 {
		return 0, 0, false
	}
	id, err1 := strconv.ParseUint(string(b[:i]), 16, 64)
	seq, err2 := strconv.ParseUint(string(b[i+1:]), 10, 64)
	return id, seq, err1 == nil && err2 == nil
}

// appendEvent appends msg as one event, with an id when the stream is
// resumable. A message is one line: JSON whitespace (the only place a raw
// CR or LF can be in valid JSON) becomes a space.
func (s *Stream) appendEvent(dst, msg []byte, seq uint64) []byte {
	if s.sess != nil {
		dst = AppendID(append(dst, "id: "...), s.id, seq)
		dst = append(dst, '\n')
	}
	dst = append(dst, "data: "...)
	start := len(dst)
	dst = append(dst, msg...)
	for i := start; i < len(dst); i++ {
		if c := dst[i]; c == '\n' || c == '\r' {
			dst[i] = ' '
		}
	}
	return append(dst, "\n\n"...)
}

// Send appends msg as the next event; final marks the response that ends
// the stream. It fails once the stream is done.
func (s *Stream) Send(msg []byte, final bool) error {
	b := pool.GetBuffer()
	defer pool.PutBuffer(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || s.final {
		return ErrDone
	}
	s.seq++
	b.B = s.appendEvent(b.B, msg, s.seq)
	if s.sess != nil {
		if err := s.cfg.Store.Append(s.cfg.Ctx, s.key(), streamstore.Event{Seq: s.seq, Data: b.B, Final: final}); err != nil {
			s.cfg.Log.Warn("mcp: event store append failed", "err", err)
		}
	}
	s.final = final
	if s.gen != 0 {
		s.pending = append(s.pending, b.B...)
		if len(s.pending) > s.cfg.MaxPending { // a client that does not read: drop its connection
			s.detachLocked()
		}
		s.signal()
	}
	return nil
}

// Abandon ends the stream without its response (the call was cancelled).
func (s *Stream) Abandon() {
	s.mu.Lock()
	s.final = true
	if s.gen == 0 {
		s.done = true
	}
	s.signal()
	s.mu.Unlock()
}

// CutConn closes the attached connection, keeping the stream (polling).
func (s *Stream) CutConn() {
	s.mu.Lock()
	s.cut = s.gen != 0
	s.signal()
	s.mu.Unlock()
}

// Attach makes a new connection the stream's, taking over from the one
// attached (if any), and queues for it a priming event (prime) or the
// stored events after seq after (replay). It returns the connection's
// generation, and 0 when the stream is done and nothing is left to send.
func (s *Stream) Attach(prime, replay bool, after uint64) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending, s.cut = s.pending[:0], false
	if prime {
		s.pending = append(s.pending, "id: "...)
		s.pending = AppendID(s.pending, s.id, s.seq)
		s.pending = append(s.pending, "\nretry: "...)
		s.pending = strconv.AppendInt(s.pending, s.cfg.Retry.Milliseconds(), 10)
		s.pending = append(s.pending, "\ndata: \n\n"...)
	}
	if replay {
		_, err := s.cfg.Store.Replay(s.cfg.Ctx, s.key(), after, func(ev streamstore.Event) error {
			s.pending = append(s.pending, ev.Data...)
			return nil
		})
		if err != nil {
			s.cfg.Log.Warn("mcp: event store replay failed", "err", err)
		}
		if len(s.pending) == 0 && s.final {
			s.done = true
			return 0
		}
	}
	s.lastGen++
	s.gen = s.lastGen
	s.signal() // the writer of an older generation notices and leaves
	return s.gen
}

// detachLocked leaves the stream without a connection.
func (s *Stream) detachLocked() {
	s.gen = 0
	s.pending = s.pending[:0]
}

// Serve writes the stream to the connection of generation gen (see the
// NOTE) and returns when that connection is no longer the stream's.
func (s *Stream) Serve(w *bufio.Writer, nc net.Conn, gen uint64) {
	cfg := s.cfg
	var sessDone <-chan struct{}
	if s.sess != nil {
		sessDone = s.sess.Ended()
		s.sess.Hold()
		defer s.sess.Unhold()
	}
	defer s.release()
	tick := time.NewTicker(cfg.KeepAlive)
	defer tick.Stop()
	write := func(b []byte) error {
		if cfg.WriteTimeout > 0 && nc != nil {
			nc.SetWriteDeadline(time.Now().Add(cfg.WriteTimeout))
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		return w.Flush()
	}
	for {
		s.mu.Lock()
		if s.gen != gen {
			s.mu.Unlock()
			return
		}
		buf := s.pending
		s.pending, s.spare = s.spare[:0], nil
		final, cut := s.final, s.cut
		s.mu.Unlock()
		var err error
		if len(buf) > 0 {
			err = write(buf)
		}
		s.mu.Lock()
		if cap(buf) <= 64<<10 {
			s.spare = buf[:0]
		}
		switch {
		case s.gen != gen:
		case err != nil:
			s.detachLocked()
		case final && len(s.pending) == 0:
			s.done = true
			s.detachLocked()
		case cut:
			s.detachLocked()
		default:
			s.mu.Unlock()
			select {
			case <-s.wake:
			case <-tick.C:
				if err := write(KeepAliveComment); err != nil {
					s.mu.Lock()
					if s.gen == gen {
						s.detachLocked()
					}
					s.mu.Unlock()
					return
				}
			case <-sessDone:
				return
			case <-cfg.Done:
				return
			}
			continue
		}
		s.mu.Unlock()
		return
	}
}

// release lets go of the stream's call, cancelling it when the stream
// ended without its response (the connection was lost): a stream that
// cannot be resumed is the call's only way to the client.
func (s *Stream) release() {
	s.mu.Lock()
	c, lost := s.owner, !s.done
	s.owner = nil
	s.mu.Unlock()
	if c != nil {
		if lost {
			c.Cancel()
		}
		c.Release()
	}
}

// KeepAliveComment is the line a silent connection gets.
var KeepAliveComment = []byte(": keep-alive\n\n")

type streamError string

func (e streamError) Error() string { return string(e) }

// ErrDone: the stream has ended.
const ErrDone = streamError("mcp: the event stream has ended")
