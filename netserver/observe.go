package netserver

// NOTE: the connection events a server reports to Options.Observer, and
// the dispatch.Origin each transport attaches to the context its messages
// run under (so that engine observers, logs and tracing know the transport
// and the client's address, and over HTTP the trace-context headers). An
// origin costs one allocation per connection (per HTTP connection, not per
// request); over HTTP a request with a traceparent header costs one more.

import (
	"context"
	"net"

	"github.com/jetrpc/jetrpc/dispatch"
)

// Observer sees the connections of a server (Options.Observer): package
// metrics implements it with Prometheus. ObserveConn is called from the
// connections' goroutines, concurrently: it must be safe for concurrent use
// and quick (count, do not block).
//
// The calls and messages themselves, and the messages refused because all
// workers were busy (dispatch.EventOverloaded), are the engine's to
// observe: see dispatch.Observer.
type Observer interface {
	ObserveConn(t Transport, ev ConnEvent)
}

// ObserverFunc adapts a function to an Observer.
type ObserverFunc func(t Transport, ev ConnEvent)

// ObserveConn calls f.
func (f ObserverFunc) ObserveConn(t Transport, ev ConnEvent) { f(t, ev) }

var _ Observer = ObserverFunc(nil)

// Transport is the transport of a connection.
type Transport uint8

// Transports.
const (
	TCP   Transport = iota // Server.Serve: TCP or any net.Listener
	Stdio                  // Server.ServeStdio
	HTTP                   // an HTTP connection (package nethttp)
	WS                     // a WebSocket connection (GET /ws)
	SSE                    // a Server-Sent Events stream (a POST that accepts text/event-stream)
	// NumTransports is the number of transports, for arrays indexed by
	// Transport.
	NumTransports
)

var transportNames = [NumTransports]string{"tcp", "stdio", "http", "ws", "sse"}

// String returns the transport's name: "tcp", "stdio", "http", "ws", "sse"
// (also dispatch.Origin.Transport).
func (t Transport) String() string {
	if t < NumTransports {
		return transportNames[t]
	}
	return "unknown"
}

// ConnEvent is what happened to a connection.
type ConnEvent uint8

// Connection events.
const (
	// ConnOpened: a connection is served (accepted and admitted, a
	// WebSocket upgraded, an event stream started, ServeStdio called).
	ConnOpened ConnEvent = iota
	// ConnClosed: a connection that was opened ended.
	ConnClosed
	// ConnMaxConns: a TCP connection was accepted over MaxConns and closed
	// at once (it was never opened).
	ConnMaxConns
	// ConnTooLarge: a message over MaxMessage was refused: a frame
	// answered with -32600 (TCP, stdio), a body with 413 (HTTP, also for
	// a POST asking for an event stream), a WebSocket message with close
	// 1009.
	ConnTooLarge
	// ConnWriteTimeout: a write made no progress within WriteTimeout and
	// the connection was dropped.
	ConnWriteTimeout
	// ConnMaxConnsPerIP: a connection was accepted over MaxConnsPerIP and
	// closed (TCP) or answered 429 (HTTP).
	ConnMaxConnsPerIP
	// ConnUnauthorized: the guard's Auth refused a client: an HTTP request
	// (401), a WebSocket upgrade, a TCP or stdio connection (-32006, then
	// closed).
	ConnUnauthorized
	// ConnOriginRefused: a request's Origin was refused (403).
	ConnOriginRefused
	// ConnRateLimited: a message over its client's RateLimit was refused
	// (-32005 for its calls, or 429), once per message.
	ConnRateLimited
	// ConnHostRefused: an HTTP request's Host was refused (403, see
	// guard.Options.Hosts).
	ConnHostRefused
	// NumConnEvents is the number of events, for arrays indexed by
	// ConnEvent.
	NumConnEvents
)

var connEventNames = [NumConnEvents]string{"opened", "closed", "max_conns", "too_large", "write_timeout",
	"max_conns_per_ip", "unauthorized", "origin_refused", "rate_limited", "host_refused"}

// String returns the event's name in snake_case.
func (ev ConnEvent) String() string {
	if ev < NumConnEvents {
		return connEventNames[ev]
	}
	return "unknown"
}

func (o *Options) observer() Observer { return o.or().Observer }

// observe reports ev on a connection of transport t, if an observer is set.
func (l *limits) observe(t Transport, ev ConnEvent) {
	if l.obs != nil {
		l.obs.ObserveConn(t, ev)
	}
}

// withOrigin returns parent (the engine's context when nil) carrying the
// origin of a connection of transport t from remote.
func withOrigin(parent context.Context, e *dispatch.Engine, t Transport, remote net.Addr) context.Context {
	if parent == nil {
		parent = e.Context()
	}
	return dispatch.WithOrigin(parent, dispatch.Origin{Transport: t.String(), Remote: remote})
}
