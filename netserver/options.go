package netserver

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net/http"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/valyala/fasthttp"
)

// Options configures a Server. A nil *Options, and every zero field, means
// the default. A negative duration disables that timeout.
type Options struct {
	// Framing is the framing of raw TCP and stdio connections (default
	// frame.Auto: detected per connection from its first byte).
	Framing frame.Kind
	// MaxMessage is the largest message in bytes (default
	// frame.DefaultMaxMessage, 4 MiB), for every transport: a larger frame is
	// answered with -32600 and skipped; a larger HTTP body gets 413.
	MaxMessage int
	// MaxConns bounds the open connections (0: unlimited). A connection
	// accepted over the limit is closed at once, and logged.
	MaxConns int
	// MaxInFlight bounds the calls and notifications of one connection that
	// run on workers at once (default 256). At the bound the connection stops
	// reading until one finishes.
	MaxInFlight int
	// MaxPending bounds the bytes one connection holds in flight: responses
	// buffered but not yet written, and copies of the messages running on
	// workers (default 4 MiB). Over it the connection stops reading until
	// the peer has taken some output or calls have finished.
	MaxPending int
	// ReadTimeout: a frame (an HTTP request), once its first bytes arrived,
	// must be complete within this (default 30s). Not for stdio.
	ReadTimeout time.Duration
	// IdleTimeout: a connection with no input and nothing in flight for
	// this long is closed (default 5m). Not for stdio. (Whatever it is, a
	// TCP connection without input for a second gives its buffers back.)
	IdleTimeout time.Duration
	// WriteTimeout: a write that makes no progress for this long drops the
	// connection (default 30s). Not for stdio.
	WriteTimeout time.Duration
	// Logger receives connection events and errors (default slog.Default()).
	// Nothing is ever written to stdout.
	Logger *slog.Logger

	// CompressMin is the smallest response, in bytes, that the HTTP
	// servers compress (gzip or deflate, as the request's Accept-Encoding
	// allows) and the smallest WebSocket message sent with
	// permessage-deflate, where the client negotiated it (default
	// DefaultCompressMin, 1 KiB). Negative: nothing is compressed, and
	// WebSocket offers no extension. Compressed request bodies are read
	// whatever it is, held to MaxMessage once inflated.
	CompressMin int

	// Guard decides who may use the server and how much: authentication,
	// the Origin policy and CORS, the Host check and the per-client limits
	// (see package guard). Share one between servers so that a client's
	// calls and connections count across them. Nil: nobody is
	// authenticated or limited, and browser origins other than the
	// request's own host are refused.
	Guard *guard.Guard

	// HealthPath and ReadyPath are the health endpoints of the HTTP
	// servers (nethttp.HTTPServer and nethttp.Handler): a GET or HEAD of HealthPath
	// answers 200 while the server serves (liveness); of ReadyPath 200 until
	// the server drains, then 503 (readiness). Defaults "/healthz" and
	// "/readyz"; "-" turns one off. A POST to them is a JSON-RPC call as on
	// any path.
	HealthPath, ReadyPath string
	// Health is the state the endpoints report and Shutdown drains (nil:
	// the server's own). Share one between servers (TCP, HTTP, an admin
	// listener) to drain them together.
	Health *Health
	// DrainDelay is how long Shutdown keeps serving after it drains the
	// Health (ReadyPath answers 503) before it closes the listeners, so that
	// a load balancer can notice and stop sending (default 0: none). Calls
	// made meanwhile are answered as usual; HTTP responses then carry
	// "Connection: close", so keep-alive clients reconnect elsewhere. With a
	// shared Health the delay counts from its first Drain. Shutdown's
	// context bounds it too.
	DrainDelay time.Duration
	// Documents are JSON documents that the HTTP servers answer GET and
	// HEAD of (200, application/json) by path, from the function's bytes
	// (an error is 500); jetrpc serve puts the OpenRPC document at
	// /openrpc.json. A POST to these paths is a JSON-RPC call.
	Documents map[string]func() ([]byte, error)
	// Routes are endpoints of their own on nethttp.HTTPServer (not the net/http
	// adapter), by exact path: a request to one of them, whatever its
	// method, goes to its handler instead of the JSON-RPC endpoint
	// (jetrpc serve --mcp mounts package mcp's endpoint at /mcp).
	Routes map[string]fasthttp.RequestHandler
	// ConnContext, when set, derives the context of each connection's
	// handlers (TCP, stdio, WebSocket, an SSE stream) from the one
	// netserver made, as net/http's Server.ConnContext does: a value it
	// adds (a protocol's per-connection state) lives as long as the
	// connection.
	ConnContext func(ctx context.Context) context.Context
	// Mounts are net/http handlers that the HTTP servers hand GET and HEAD
	// of every path under a prefix to (a prefix ends in "/"; without it,
	// the prefix itself is redirected there), the longest prefix first;
	// jetrpc serve --ui mounts the web console (package ui) at /ui/. A POST
	// to these paths is a JSON-RPC call.
	Mounts map[string]http.Handler

	// Methods are the methods each transport serves (see
	// dispatch.MethodSet: names and prefixes, as go-ethereum's --http.api):
	// a method outside its transport's set is -32601 there and absent
	// from its rpc.discover. A transport not in the map (and a nil map)
	// serves every method. The set rides on each connection's context
	// (dispatch.WithMethodSet), looked up once per connection; an HTTP
	// request is processed by its set (MethodSet.ProcessContext). SSE
	// streams are POSTs: give them HTTP's set.
	Methods map[Transport]*dispatch.MethodSet

	// Observer sees the connections opened and closed, by transport, and
	// the ones refused or dropped (default none; see Observer, and package
	// metrics for Prometheus).
	Observer Observer

	// TLS, when set, serves TLS on every connection Serve accepts: the TCP
	// connections of a Server, and those of a nethttp.HTTPServer (HTTPS, with
	// WebSocket and SSE over it). It is copied, with MinVersion raised to
	// TLS 1.2 at least. The handshake runs on the connection's goroutine,
	// within ReadTimeout (IdleTimeout if there is none); a connection that
	// fails it is closed (logged at Info level). For client certificates
	// set ClientAuth and ClientCAs; to change the certificate without a
	// restart, GetCertificate or GetConfigForClient (package tlsconfig's
	// Reloader does it from files). Handlers read the connection's state,
	// the client's certificate included, with TLSState. A listener that
	// yields *tls.Conn is served the same way without it. ServeStdio and
	// nethttp.Handler ignore it (a net/http server does its own TLS). Nil: no
	// TLS.
	TLS *tls.Config
}

// Defaults of Options.
const (
	DefaultMaxInFlight  = 256
	DefaultMaxPending   = 4 << 20
	DefaultReadTimeout  = 30 * time.Second
	DefaultIdleTimeout  = 5 * time.Minute
	DefaultWriteTimeout = 30 * time.Second
	DefaultCompressMin  = 1 << 10
)

func (o *Options) framing() frame.Kind {
	if o == nil || o.Framing > frame.Len32 {
		return frame.Auto
	}
	return o.Framing
}

// or returns the options, the zero value for nil.
func (o *Options) or() Options {
	if o == nil {
		return Options{}
	}
	return *o
}

func (o *Options) maxMessage() int  { return positive(o.or().MaxMessage, frame.DefaultMaxMessage) }
func (o *Options) maxConns() int    { return positive(o.or().MaxConns, 0) }
func (o *Options) maxInFlight() int { return positive(o.or().MaxInFlight, DefaultMaxInFlight) }
func (o *Options) maxPending() int  { return positive(o.or().MaxPending, DefaultMaxPending) }

func (o *Options) readTimeout() time.Duration {
	return timeout(o.or().ReadTimeout, DefaultReadTimeout)
}

func (o *Options) idleTimeout() time.Duration {
	return timeout(o.or().IdleTimeout, DefaultIdleTimeout)
}

func (o *Options) writeTimeout() time.Duration {
	return timeout(o.or().WriteTimeout, DefaultWriteTimeout)
}

func (o *Options) drainDelay() time.Duration { return max(o.or().DrainDelay, 0) }

func (o *Options) tls() *tls.Config { return serverTLS(o.or().TLS) }

// health returns the shared Health, or a new one of the server's own.
func (o *Options) health() *Health {
	if h := o.or().Health; h != nil {
		return h
	}
	return new(Health)
}

func (o *Options) logger() *slog.Logger {
	if l := o.or().Logger; l != nil {
		return l
	}
	return slog.Default()
}

// positive is n, or def when n <= 0.
func positive(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// timeout applies the default to 0; a negative d (disabled) becomes 0.
func timeout(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}
