// Package seam is what netserver lends its HTTP side (package
// netserver/nethttp) without naming it in its own documentation: the
// settings it resolves from netserver.Options, the TLS and closing helpers
// its connections share, and the connection core that WebSocket
// connections and event streams run on. netserver implements it (host.go)
// and sets Open when it is initialised; nethttp imports netserver, so Open
// is set before nethttp calls it.
package seam

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver/guard"
)

// Errors a Core's reading ends with.
var (
	// ErrStopped: Shutdown stopped the connection.
	ErrStopped = errors.New("netserver: connection stopped by Shutdown")
	// ErrIdle: the connection was idle for IdleTimeout.
	ErrIdle = errors.New("netserver: connection idle for IdleTimeout")
)

// Transport is what a connection plugs into its Core: its framing and its
// writes (netserver's transport interface, see core.go).
type Transport interface {
	// Begin starts a frame at the end of b and returns where it begins.
	Begin(b []byte) (out []byte, mark int)
	// End completes the frame begun at b[mark].
	End(b []byte, mark int) []byte
	// Write writes b, whole frames; the core's lock is not held.
	Write(b []byte) error
	// Interrupt unblocks a read in progress; the core's lock is held.
	Interrupt()
	// Drop closes the connection at once; the core's lock is held.
	Drop()
}

// Piecewise is a Transport that can send one message in pieces (a
// WebSocket message as fragments), for streamed results (netserver's
// result_stream.go).
type Piecewise interface {
	// Piecewise reports whether the connection can now.
	Piecewise() bool
	// AppendPiece appends b framed as a piece of one message.
	AppendPiece(dst, b []byte, first, last bool) []byte
	// CutOff returns the frame that ends the connection after a message
	// that cannot be completed (a close frame), or nil to close it.
	CutOff() []byte
}

// Reader is what a connection that reads gives Core.ReadLoop.
type Reader interface {
	Ready() bool
	Arm() error
	Next() ([]byte, error)
	ReadError(err error) error
}

// Core is netserver's connection core (core.go) as a connection of
// another package uses it.
type Core interface {
	ReadLoop(r Reader) error
	Send(ctx context.Context, msg []byte) error
	QueueRaw(b []byte, last bool) bool
	Handoff()
	Cancel()
	Context() context.Context
	ProcessStream(msg []byte, each func(resp []byte))
	Drain(orderly bool, limit time.Duration)
	Finish()
	Release()
	// ArmRead sets nc's read deadline d from now, unless Shutdown stopped
	// the connection (ErrStopped), under the core's lock.
	ArmRead(nc net.Conn, d time.Duration) error
	Stopping() bool
	// WriteConn writes b to nc within the write timeout.
	WriteConn(nc net.Conn, b []byte) error
	// Unhold lets output held since NewCore (held) be written.
	Unhold()
	IdleFor(d time.Duration) bool
	Remote() string
}

// Settings are the Options of a server, their defaults applied.
type Settings struct {
	MaxMessage   int
	MaxConns     int
	ReadTimeout  time.Duration
	IdleTimeout  time.Duration
	WriteTimeout time.Duration
	DrainDelay   time.Duration
	TLS          *tls.Config // serverTLS: MinVersion raised; nil: none
	Logger       *slog.Logger
	Guard        *guard.Guard // never nil
}

// Host is the netserver side of an HTTP server: its settings, its Health,
// the core of its WebSocket connections and event streams, and the set of
// its WebSocket connections.
type Host interface {
	Settings() *Settings
	// Ready and WaitDrain are the server's Health (Options.Health).
	Ready() bool
	WaitDrain(ctx context.Context)
	// NewCore returns a core for a connection of transport via (a
	// netserver.Transport) over t, whose handlers run under parent; nc
	// (nil: none) names the client in the logs; oneWay peers take
	// notifications only; held keeps the output until Unhold; id, if
	// not nil, is the identity an HTTP upgrade established, for the
	// connection's gate.
	NewCore(t Transport, nc net.Conn, parent context.Context, via uint8, oneWay, held bool, id *auth.Identity) Core
	// Track registers a WebSocket connection (an error once shut
	// down); Untrack removes it; CloseConns refuses new ones;
	// ShutdownConns stops them all and waits; OpenConns counts them.
	Track(c Core) error
	Untrack(c Core)
	CloseConns()
	ShutdownConns(ctx context.Context) error
	OpenConns() int
	// Pending is the largest number of bytes that one of the open
	// WebSocket connections holds (MaxPending's count), for tests.
	Pending() int64
}

// Open returns the Host of an HTTP server of e configured by opts, a
// *netserver.Options (nil means the defaults). Set by netserver.
var Open func(e *dispatch.Engine, opts any) Host

// Helpers of netserver's that the HTTP side shares, set by netserver.
var (
	// WithTLS returns parent carrying nc's TLS state when nc has TLS.
	WithTLS func(parent context.Context, nc net.Conn) context.Context
	// WithTLSState returns parent carrying st (nil: parent).
	WithTLSState func(parent context.Context, st *tls.ConnectionState) context.Context
	// TLSSlot returns the TLS state that ctx (from WithTLS) carries, to be
	// filled in by Handshaken, and whether the handshake is still due;
	// nil without TLS.
	TLSSlot func(ctx context.Context) (st *tls.ConnectionState, due bool)
	// Handshaken records st as the TLS state of ctx (from WithTLS).
	Handshaken func(ctx context.Context, st tls.ConnectionState)
	// ListenTLS wraps ln to serve TLS with cfg (nil: ln).
	ListenTLS func(ln net.Listener, cfg *tls.Config) net.Listener
	// LingerClose half-closes nc, drains it for at most d and n bytes,
	// then closes it.
	LingerClose func(nc net.Conn, d time.Duration, n int64)
	// LingerFailed drains a connection whose TLS handshake failed.
	LingerFailed func(nc net.Conn)
	// CloseNow closes nc at once (TLS without its close_notify).
	CloseNow func(nc net.Conn) error
)
