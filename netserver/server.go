package netserver

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
)

// ErrServerClosed is returned by Serve and ServeStdio after Shutdown.
var ErrServerClosed = errors.New("netserver: server closed")

// Server serves an Engine over raw TCP (or any net.Listener) and stdio.
// Create it with New; it is safe for concurrent use.
type Server struct {
	e   *dispatch.Engine
	log *slog.Logger
	lim limits

	framing      frame.Kind
	maxMessage   int
	idleRelease  time.Duration
	tooLargeData []byte // error.data of the answer to an oversized frame

	mu        sync.Mutex
	closed    bool
	listeners map[net.Listener]struct{}
	conns     connSet // TCP connections and ServeStdio calls
	health    *Health
	drain     time.Duration // Options.DrainDelay
	tls       *tls.Config   // Options.TLS; nil: none (tls.go)
	sweep     sweeper       // the TCP connections' idle spells (sweep.go)
	parker    parker        // idle connections waiting without a goroutine (park.go)

	// testHookRelease, when set, is called (under c.mu) each time an idle
	// connection gives its buffers back.
	testHookRelease func(c *conn)
}

// New returns a Server for e configured by opts (nil means the defaults).
// Register e's methods before serving.
func New(e *dispatch.Engine, opts *Options) *Server {
	s := &Server{
		e:           e,
		log:         opts.logger(),
		lim:         newLimits(opts),
		framing:     opts.framing(),
		maxMessage:  opts.maxMessage(),
		idleRelease: idleRelease,
		listeners:   make(map[net.Listener]struct{}),
		conns:       connSet{max: opts.maxConns()},
		health:      opts.health(),
		drain:       opts.drainDelay(),
		tls:         opts.tls(),
	}
	s.tooLargeData = appendTooLargeData(nil, s.maxMessage)
	return s
}

// Serve accepts connections on ln and serves each on its own goroutine until
// Shutdown, then returns ErrServerClosed. Any other error of ln.Accept that
// is not temporary is returned. Serve always closes ln.
func (s *Server) Serve(ln net.Listener) error {
	ln = listenTLS(ln, s.tls)
	if !s.addListener(ln) {
		ln.Close()
		return ErrServerClosed
	}
	defer s.removeListener(ln)
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.isClosed() {
				return ErrServerClosed
			}
			if !isTemporary(err) {
				return err
			}
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			s.log.Warn("netserver: accept failed; retrying", "err", err, "delay", delay)
			time.Sleep(delay)
			continue
		}
		delay = 0
		s.accept(nc)
	}
}

// accept starts serving nc, or closes it when over MaxConns or shut down.
func (s *Server) accept(nc net.Conn) {
	ip, ok := s.lim.sec.OpenConn(nc.RemoteAddr())
	if !ok { // guard.Options.MaxConnsPerIP
		s.lim.observe(TCP, ConnMaxConnsPerIP)
		s.log.Warn("netserver: too many connections from one address; closing new one",
			"remote", nc.RemoteAddr().String(), "max", s.lim.sec.MaxConnsPerIP())
		nc.Close()
		return
	}
	c := newConn(s, nc, nc, nc)
	c.ip, c.counted = ip, true
	if err := s.conns.add(&c.core); err != nil {
		if err != ErrServerClosed {
			s.lim.observe(TCP, ConnMaxConns)
			s.log.Warn("netserver: too many connections; closing new one",
				"remote", nc.RemoteAddr().String(), "max", s.conns.max)
		}
		nc.Close()
		c.release()
		return
	}
	s.lim.observe(TCP, ConnOpened)
	go c.serveTracked()
}

func (s *Server) addListener(ln net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.listeners[ln] = struct{}{}
	return true
}

func (s *Server) removeListener(ln net.Listener) {
	s.mu.Lock()
	_, open := s.listeners[ln]
	delete(s.listeners, ln)
	s.mu.Unlock()
	if open {
		ln.Close()
	}
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Shutdown stops the server gracefully: it drains the Health and goes on
// serving for Options.DrainDelay (see there); then it closes the listeners,
// stops reading on every connection (frames received but not yet started
// are dropped), lets the calls in flight finish and write their responses,
// closes the connections and waits for every goroutine of the server. If
// ctx ends first, it cancels the handlers' contexts, closes every connection
// and returns ctx.Err(); the remaining goroutines exit as their handlers
// return.
//
// A stdio connection whose reader can take neither a read deadline nor be
// closed (a blocking os.Stdin) cannot be interrupted: Shutdown then waits for
// its next read to return, or for ctx.
func (s *Server) Shutdown(ctx context.Context) error {
	s.health.waitDrain(ctx, s.drain)
	s.mu.Lock()
	s.closed = true
	for ln := range s.listeners {
		ln.Close()
		delete(s.listeners, ln)
	}
	s.mu.Unlock()
	return s.conns.shutdown(ctx)
}

// isTemporary reports whether an Accept error is worth retrying.
func isTemporary(err error) bool {
	if errors.Is(err, net.ErrClosed) {
		return false
	}
	var te interface{ Temporary() bool }
	if errors.As(err, &te) && te.Temporary() {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
