package client

// NOTE: redialling a lost connection (Options.Reconnect), for streams and
// WebSockets alike. The transport's reader goroutine, once its connection
// fails, calls lose, closes the connection, then redialLoop. lose puts the sender down (begin then waits for the
// next connection, or fails fast), fails the calls in flight with
// ErrConnectionLost (they were registered under the write lock before
// their bytes were queued, so every call pending now was on the lost
// connection); redialLoop waits for the flush on the old connection to
// end and redials with exponential backoff and jitter. The transport's redial
// dials, authenticates and installs the new connection under the lock,
// unless the client was closed meanwhile. Then the reader reads again, and
// the OnReconnect hook runs on a goroutine of its own (it may make calls,
// which need the reader).

import (
	"context"
	"math/rand/v2"
	"time"
)

// Reconnect configures the redialling of a lost stream or WebSocket
// connection (Options.Reconnect). The zero value is the defaults.
type Reconnect struct {
	// MinDelay is the wait before the first redial (default 50ms); each
	// failed attempt doubles it, up to MaxDelay (default 5s). Every wait
	// is jittered: between half of it and all of it.
	MinDelay, MaxDelay time.Duration
	// MaxAttempts bounds the redials of one outage (0: until Close). When
	// they fail, the client is closed: calls fail with an error wrapping
	// ErrClosed and ErrConnectionLost, and the last dial error.
	MaxAttempts int
	// FailFast makes calls made while the client redials fail at once
	// with ErrDisconnected. Otherwise they wait for the connection, up to
	// their context.
	FailFast bool
	// OnReconnect runs after each successful redial, on a goroutine of
	// its own, with a context that ends when the client is closed: make
	// the subscriptions again here. Calls made from it are sent on the new
	// connection, as are the calls that waited.
	OnReconnect func(ctx context.Context, c *Client)
	// OnState is told of each change of the client's State. It runs on
	// the client's reader goroutine (or Close's): it must not block.
	OnState func(State)
}

// State is the state of a client's connection.
type State int32

const (
	// Connected: calls are sent. HTTP clients are always Connected until
	// closed.
	Connected State = iota
	// Reconnecting: the connection was lost and is being redialled
	// (Options.Reconnect).
	Reconnecting
	// Closed: the client was closed, or its connection lost for good.
	Closed
)

func (s State) String() string {
	switch s {
	case Connected:
		return "connected"
	case Reconnecting:
		return "reconnecting"
	}
	return "closed"
}

// Defaults of Reconnect.
const (
	DefaultReconnectMinDelay = 50 * time.Millisecond
	DefaultReconnectMaxDelay = 5 * time.Second
)

func (o *Options) reconnect() *Reconnect {
	if o == nil {
		return nil
	}
	return o.Reconnect
}

// State returns the state of the client's connection.
func (c *Client) State() State { return State(c.state.Load()) }

// setState records a new state and tells OnState.
func (c *Client) setState(st State) {
	for {
		old := State(c.state.Load())
		if old == st || old == Closed { // Closed is final
			return
		}
		if c.state.CompareAndSwap(int32(old), int32(st)) {
			break
		}
	}
	if c.rc != nil && c.rc.OnState != nil {
		c.rc.OnState(st)
	}
}

// enableRedial turns redialling on for the sender of a client.
func (s *sender) enableRedial(rc *Reconnect) {
	s.redials, s.failFast = true, rc.FailFast
	s.c.rc = rc
}

// lose handles the loss of the connection with err. Without redialling
// (or once the client is closed) it fails the client and returns false.
// Otherwise it puts the sender down, fails the calls in flight with
// ErrConnectionLost and returns true; redialLoop comes next.
func (s *sender) lose(err error) bool {
	c := s.c
	if !s.redials || c.closedErr() != nil {
		c.fail(lost(err))
		return false
	}
	s.mu.Lock()
	s.down = true
	s.room.Broadcast()
	if !s.q.Flushing() {
		s.q.Out = s.q.Out[:0]
	}
	s.mu.Unlock()
	c.setState(Reconnecting)
	c.calls.FailAll(&connError{err: err})
	return true
}

// redialLoop redials with redial, with backoff, until a new connection is
// installed (true), or the client is closed or the attempts run out
// (false). The old connection is closed already.
func (s *sender) redialLoop(redial func(ctx context.Context) error) bool {
	c := s.c
	s.mu.Lock()
	idle := s.idleChan()
	s.mu.Unlock()
	if idle != nil { // the flush on the closed connection fails at once
		select {
		case <-idle:
		case <-c.done:
			return false
		}
	}
	rc := c.rc
	delay := or(rc.MinDelay, DefaultReconnectMinDelay)
	maxDelay := or(rc.MaxDelay, DefaultReconnectMaxDelay)
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for attempt := 1; ; attempt++ {
		t.Reset(delay/2 + rand.N(delay/2+1))
		select {
		case <-t.C:
		case <-c.done:
			return false
		}
		ctx, cancel := context.WithTimeout(c.ctx, dialTimeout)
		err := redial(ctx)
		cancel()
		if err == nil {
			break
		}
		if err == errClosing || c.closedErr() != nil {
			return false
		}
		if rc.MaxAttempts > 0 && attempt >= rc.MaxAttempts {
			s.mu.Lock()
			s.closed = true
			s.room.Broadcast()
			s.mu.Unlock()
			c.fail(lost(err))
			return false
		}
		delay = min(2*delay, maxDelay)
	}
	c.setState(Connected)
	if rc.OnReconnect != nil {
		c.hooks.Add(1)
		go func() {
			defer c.hooks.Done()
			rc.OnReconnect(c.ctx, c)
		}()
	}
	return true
}

// errClosing is the error of a redial that found the client closed.
var errClosing = &connError{err: ErrClosed, closed: true}

// install makes conn (closed by the client from now on) the sender's
// connection, set runs under the lock to swap the transport's own fields,
// and brings the sender up: calls waiting in begin go on.
func (s *sender) install(conn interface{ Close() error }, set func()) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c.closedErr() != nil {
		conn.Close()
		return errClosing
	}
	set()
	s.closed = false // a WebSocket's close handshake on the lost connection
	s.cc = &connCloser{c: conn}
	s.err = nil
	s.q.Out = s.q.Out[:0]
	s.down = false
	if s.up != nil {
		close(s.up)
		s.up = nil
	}
	s.room.Broadcast()
	return nil
}

func or[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// setFailFast makes begin fail at once while redialling (a Pool's
// endpoints).
func (s *sender) setFailFast() {
	s.mu.Lock()
	s.failFast = true
	s.mu.Unlock()
}
