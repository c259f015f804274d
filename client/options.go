package client

import (
	"context"
	"crypto/tls"
	"log/slog"
	"time"

	"github.com/jetrpc/jetrpc/frame"
)

// Options configures a Client. A nil *Options, and every zero field, means
// the default. A negative duration disables that timeout.
type Options struct {
	// Framing is the framing of a stream (Dial, NewStdio, NewConn): NDJSON,
	// Header or Len32. The zero value (frame.Auto, which only a reader can
	// use) means NDJSON. HTTP and WebSocket ignore it.
	Framing frame.Kind
	// MaxMessage is the largest message in bytes either way (default
	// frame.DefaultMaxMessage, 4 MiB). A larger request fails with
	// ErrTooLarge before it is sent; a larger answer over HTTP fails its
	// call with ErrResponseTooLarge, and a larger message from the server
	// closes a stream or WebSocket connection, since the client cannot
	// tell which call it answered.
	MaxMessage int
	// Handler handles the calls and notifications the server sends on a
	// stream or WebSocket, one at a time in the order they came, on a goroutine of the
	// client. Its responses are written back. Nil: calls are answered with
	// -32601 Method not found and notifications are ignored.
	Handler Handler
	// CancelNotify makes a call whose context ends before its answer send
	// the LSP notification {"method":"$/cancelRequest","params":{"id":ID}}
	// on a stream or WebSocket.
	CancelNotify bool
	// WriteTimeout: on a stream whose writer takes deadlines (net.Conn, the
	// pipes of NewStdio) and on a WebSocket, a write that does not
	// complete within this closes the connection (default 30s).
	WriteTimeout time.Duration
	// IdleTimeout: how long HTTP keeps an idle keep-alive connection
	// (default 10s; zero or negative means the default).
	IdleTimeout time.Duration
	// Logger receives events such as dropped responses (debug) and handler
	// panics (error). Default slog.Default().
	Logger *slog.Logger
	// TraceContext, when set, gives the W3C trace context that each call
	// and notification carries to the server: over HTTP in the traceparent
	// and tracestate headers, on a stream or WebSocket in the request's
	// "_meta" object (members "traceparent" and "tracestate"). Package
	// tracing's ClientTraceContext takes it from the OpenTelemetry span of
	// the call's context. The members of a Batch carry it over HTTP only.
	TraceContext TraceContextFunc
	// TLS configures TLS: with it Dial speaks TLS over the connection it
	// makes (the handshake bounded by Dial's ctx), and DialHTTP and
	// DialWebSocket use it for https:// and wss:// URLs (http:// and ws://
	// ignore it). Nil: Dial is plain, and https and wss trust the system's
	// roots. Set RootCAs to trust a CA of your own, Certificates to present
	// a client certificate (package tlsconfig's Client reads both from
	// files). It is not changed; an empty ServerName means the host dialled.
	TLS *tls.Config
	// Header holds header lines "Name: value" sent with every HTTP
	// request and WebSocket handshake (an API key, say). A line without a
	// colon, or with a CR or LF, is an error of the Dial function.
	Header []string
	// Token supplies a credential, asked for afresh each time one is sent
	// (a rotating credential, a JWT with a fresh iat: see JWT and
	// BearerToken). Over HTTP and WebSocket it goes in "Authorization:
	// Bearer TOKEN" of every request and of every handshake; over a
	// stream (Dial, NewStdio) in the rpc.authenticate call sent first on
	// each connection, as a jetrpc server started with --jwt-secret or
	// --tokens expects. NewConn sends none. Nil: no credential.
	Token TokenFunc
	// Reconnect, set on a client of Dial or DialWebSocket, redials a lost
	// connection (see Reconnect). Nil: a lost connection closes the
	// client.
	Reconnect *Reconnect
	// CompressMin is the smallest message, in bytes, that a WebSocket
	// client sends compressed (default DefaultCompressMin, 1 KiB; as a
	// jetrpc server's netserver.Options.CompressMin). DialWebSocket offers
	// permessage-deflate (RFC 7692) and reads compressed messages whenever
	// the server accepts; DialHTTP asks for gzip answers. Negative: no
	// offer, nothing compressed either way, and plain HTTP answers.
	CompressMin int
	// Retry sends calls of the methods it declares idempotent again after
	// a transport error or an error code it lists (see RetryPolicy). Nil:
	// every call is sent once.
	Retry *RetryPolicy
}

// Defaults of Options.
const (
	DefaultWriteTimeout = 30 * time.Second
	DefaultIdleTimeout  = 10 * time.Second
	DefaultCompressMin  = 1 << 10
)

// Handler processes one complete message the server sent (a call, a
// notification or a batch of them) and appends the response, if one is due,
// to dst. *dispatch.Engine satisfies it.
//
// If the Handler also has a method
//
//	ProcessContext(ctx context.Context, dst, msg []byte) []byte
//
// (as *dispatch.Engine does), the client calls that instead, with a context
// that is cancelled when the client is closed or its connection is lost.
type Handler interface {
	Process(dst, msg []byte) []byte
}

// HandlerFunc adapts a function to a Handler.
type HandlerFunc func(dst, msg []byte) []byte

// Process calls f(dst, msg).
func (f HandlerFunc) Process(dst, msg []byte) []byte { return f(dst, msg) }

var _ Handler = HandlerFunc(nil)

// contextHandler is the optional extension of Handler described there.
type contextHandler interface {
	ProcessContext(ctx context.Context, dst, msg []byte) []byte
}

func (o *Options) framing() frame.Kind {
	if o == nil || o.Framing == frame.Auto {
		return frame.NDJSON
	}
	return o.Framing
}

// check reports options that cannot work.
func (o *Options) check() error {
	if o == nil {
		return nil
	}
	if o.Framing > frame.Len32 {
		return errFraming(o.Framing)
	}
	if _, err := headerLines(o.Header); err != nil {
		return err
	}
	return nil
}

func (o *Options) maxMessage() int {
	if o == nil || o.MaxMessage <= 0 {
		return frame.DefaultMaxMessage
	}
	return o.MaxMessage
}

// compressMin is CompressMin with its default; -1 means off.
func (o *Options) compressMin() int {
	switch {
	case o == nil || o.CompressMin == 0:
		return DefaultCompressMin
	case o.CompressMin < 0:
		return -1
	}
	return o.CompressMin
}

func (o *Options) handler() Handler {
	if o == nil {
		return nil
	}
	return o.Handler
}

func (o *Options) cancelNotify() bool { return o != nil && o.CancelNotify }

func (o *Options) writeTimeout() time.Duration {
	if o == nil {
		return DefaultWriteTimeout
	}
	return timeout(o.WriteTimeout, DefaultWriteTimeout)
}

func (o *Options) idleTimeout() time.Duration {
	if o == nil || o.IdleTimeout <= 0 {
		return DefaultIdleTimeout
	}
	return o.IdleTimeout
}

func (o *Options) logger() *slog.Logger {
	if o == nil || o.Logger == nil {
		return slog.Default()
	}
	return o.Logger
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

func (o *Options) header() []string {
	if o == nil {
		return nil
	}
	return o.Header
}

func (o *Options) token() TokenFunc {
	if o == nil {
		return nil
	}
	return o.Token
}

func (o *Options) retryPolicy() *RetryPolicy {
	if o == nil {
		return nil
	}
	return o.Retry
}
