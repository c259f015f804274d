// Package seam is the boundary between package mcp (the server: its
// methods, its calls and the sessions every transport shares) and its
// Streamable HTTP transport (package mcphttp). mcp implements Core, Call
// and Session; mcphttp implements CallTransport and SessionTransport.
// Every method here runs per request without allocating.
package seam

import (
	"context"
	"log/slog"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/mcp/internal/paramheader"
)

// Core is an mcp.Server as its HTTP transport sees it.
type Core interface {
	// Engine is the engine that runs the MCP methods.
	Engine() *dispatch.Engine
	// Logger is the Server's logger.
	Logger() *slog.Logger
	// BaseContext is the parent of the contexts of the transport's calls.
	BaseContext() context.Context
	// Freeze ends registration (the transport is about to serve).
	Freeze()
	// GetCall makes a call whose transport side is t; PutCall frees it
	// (nothing may use it afterwards).
	GetCall(t CallTransport) Call
	PutCall(c Call)
	// TransportOf returns the transport side of the call ctx belongs to,
	// or nil.
	TransportOf(ctx context.Context) CallTransport
	// NewSession makes the shared part of a session whose transport side
	// is t.
	NewSession(id string, t SessionTransport) Session
	// Blocking reports whether a request for method may block (it then
	// runs on a worker); tool is the name a tools/call calls. (No pointer
	// into the request's parse crosses the seam: it would escape.)
	Blocking(method, tool []byte) bool
	// ModernMethod reports whether a request of the Modern revision for
	// method is served (else 404).
	ModernMethod(method []byte) bool
	// Refused returns the error of a request for method naming name (a
	// tool, a prompt or a resource's URI) that the Server's Access refuses
	// to id, and what id lacks (the scope of a 403 step-up challenge,
	// perhaps ""); a nil error when it is allowed.
	Refused(id *auth.Identity, method, name []byte) (needed string, err error)
	// ToolHeaders returns the x-mcp-header marks of the tool name (nil:
	// none, or no such tool).
	ToolHeaders(name []byte) []paramheader.Header
	// UnsupportedVersion is the UnsupportedProtocolVersion error for
	// requested.
	UnsupportedVersion(requested []byte) error
	// EndListeners ends the subscriptions/listen streams of the calls whose
	// CallTransport's Endpoint is endpoint, with their result, and waits
	// (until ctx ends, a second at most) for each to be written.
	EndListeners(ctx context.Context, endpoint any)
}

// Call is one request as its transport sees it: the context the engine
// runs it under.
type Call interface {
	context.Context
	// Route sets what the transport decided: the request's session (nil:
	// none), the parent of its context, the revision it is served as and
	// whether that is the Modern one.
	Route(sess Session, parent context.Context, version string, modern bool)
	// SetIdentity sets who made the request (nil: nobody known), which
	// its handlers read with auth.IdentityOf and the Server's Access
	// judges.
	SetIdentity(id *auth.Identity)
	// Cancel cancels the call; it reports whether it was the first to.
	Cancel() bool
	// Cancelled reports whether the call was cancelled.
	Cancelled() bool
}

// Session is the part of a session that every transport shares (its
// revision, its calls in progress), as the HTTP transport sees it.
type Session interface {
	SetVersion(v string)
	VersionOr(def string) string
	SetInitialized()
	// CancelAll cancels the session's calls in progress (it ended).
	CancelAll()
}

// CallTransport is the transport side of a call, as mcp reads it.
type CallTransport interface {
	// Endpoint identifies the transport endpoint serving the call.
	Endpoint() any
	// Inline reports whether the call runs on the transport's own
	// goroutine (it must not wait for the client then).
	Inline() bool
	// Stream returns the call's event stream, nil while it has none.
	Stream() Stream
	// CloseStream is mcp.CloseSSEStream: it closes the connection of the
	// call's event stream (starting the stream first), keeping the stream;
	// it reports whether it did.
	CloseStream() bool
	// SetStatus sets the HTTP status of the call's JSON answer.
	SetStatus(code int)
	// StateKey returns the key that signs the call's requestState (nil:
	// the Server's own).
	StateKey() []byte
}

// Stream is a call's event stream.
type Stream interface {
	// Done reports whether the stream has ended and its writer has
	// written everything.
	Done() bool
}

// SessionTransport is the transport side of a session, as mcp reads it.
type SessionTransport interface {
	// PeerContext is a context whose dispatch.Peer sends to the session's
	// client outside any call.
	PeerContext() context.Context
}

// CoreOf returns the Core of an *mcp.Server. Package mcp sets it when it
// is initialised; nothing else may.
var CoreOf func(server any) Core
