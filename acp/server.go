package acp

// NOTE: the agent side. A Server registers ACP's agent methods on an
// engine as Typed handlers around the Agent (methods.go). Around each
// request it keeps two things the Agent need not know about:
//
//   - requests in flight by id, per connection (connState.calls), which
//     $/cancel_request cancels;
//   - prompt turns in flight by session id (Server.turns), which
//     session/cancel cancels.
//
// Both cancel the request's context with a cause of this package
// (errCancelRequest, errCancelTurn), which is how the answer is chosen
// afterwards: a cancelled turn is stopReason "cancelled" whatever the
// Agent returned, another cancelled request -32800.
//
// Per-connection state (the client's capabilities, the requests in flight)
// lives in the connection's context when the transport calls ConnContext
// (netserver.Options.ConnContext); without it, one state is shared, which
// is right for the one connection of a stdio agent.

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/jetrpc/jetrpc/dispatch"
)

// Agent is an ACP agent: the baseline methods every agent serves.
type Agent interface {
	// Initialize negotiates the protocol version and capabilities. The
	// Server stores the client's capabilities for ClientOf before calling
	// it, and answers ProtocolVersion when the response leaves it 0.
	Initialize(ctx context.Context, req *InitializeRequest) (*InitializeResponse, error)
	// NewSession creates a session and returns its id.
	NewSession(ctx context.Context, req *NewSessionRequest) (*NewSessionResponse, error)
	// Prompt runs a prompt turn: it reports its progress with
	// ClientOf(ctx).Update and returns the stop reason. ctx is cancelled by
	// session/cancel (and $/cancel_request for this request); the turn then
	// answers "cancelled" whatever Prompt returns.
	Prompt(ctx context.Context, req *PromptRequest) (*PromptResponse, error)
	// Cancel is told of session/cancel, after the session's turns in
	// progress had their contexts cancelled.
	Cancel(ctx context.Context, n *CancelNotification) error
}

// Authenticator is an Agent that serves authenticate.
type Authenticator interface {
	Authenticate(ctx context.Context, req *AuthenticateRequest) (*AuthenticateResponse, error)
}

// SessionLoader is an Agent that serves session/load: it replays the
// session's history with ClientOf(ctx).Update before it returns.
type SessionLoader interface {
	LoadSession(ctx context.Context, req *LoadSessionRequest) (*LoadSessionResponse, error)
}

// ModeSetter is an Agent that serves session/set_mode.
type ModeSetter interface {
	SetSessionMode(ctx context.Context, req *SetSessionModeRequest) (*SetSessionModeResponse, error)
}

// Options configures a Server. A nil *Options means the defaults.
type Options struct {
	// Logger receives what the Server cannot answer to (default
	// slog.Default()).
	Logger *slog.Logger
}

// Server serves an Agent on a dispatch.Engine.
type Server struct {
	agent Agent
	log   *slog.Logger

	mu     sync.Mutex
	turns  map[string]map[*turn]struct{} // prompt turns in flight, by session id
	shared connState                     // for connections without ConnContext
}

// turn is one prompt turn in flight.
type turn struct{ cancel context.CancelCauseFunc }

// Causes of a cancelled request context.
var (
	errCancelTurn    = errors.New("acp: session/cancel")
	errCancelRequest = errors.New("acp: $/cancel_request")
)

// NewServer returns a Server for a.
func NewServer(a Agent, opts *Options) *Server {
	s := &Server{agent: a, log: slog.Default(), turns: map[string]map[*turn]struct{}{}}
	if opts != nil && opts.Logger != nil {
		s.log = opts.Logger
	}
	return s
}

// connState is what the Server keeps per connection.
type connState struct {
	mu    sync.Mutex
	caps  ClientCapabilities
	calls map[string]context.CancelCauseFunc // requests in flight by raw id
}

type stateKey struct{}

// ConnContext adds a connection's state to its context; give it to the
// transport (netserver.Options.ConnContext) when one Server serves several
// connections, so that each has its own client capabilities and request
// ids.
func (s *Server) ConnContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, stateKey{}, new(connState))
}

// state returns the connection's state.
func (s *Server) state(ctx context.Context) *connState {
	if st, _ := ctx.Value(stateKey{}).(*connState); st != nil {
		return st
	}
	return &s.shared
}

// track makes ctx cancellable by $/cancel_request with the request's id,
// and makes ClientOf find s in it.
// done must be called when the request is answered.
//
// The engine's call context lives in pooled state, valid only until the
// handler returns, while $/cancel_request and session/cancel may cancel
// from another goroutine at any time. So the cancellable context is not
// derived from it as a child (cancelling a child reads its parent): it
// derives from context.WithoutCancel(call), which gives the call's values,
// and the call's own end (the connection closed, a call timeout) is
// forwarded to it by an AfterFunc, stopped before the handler returns.
func (s *Server) track(call context.Context) (context.Context, context.CancelCauseFunc, func()) {
	ctx, cancel := context.WithCancelCause(context.WithValue(context.WithoutCancel(call), serverKey{}, s))
	stop := context.AfterFunc(call, func() { cancel(context.Canceled) })
	id := dispatch.RequestID(call)
	if id == nil {
		return ctx, cancel, func() { stop(); cancel(nil) }
	}
	key := string(id)
	st := s.state(call)
	st.mu.Lock()
	if st.calls == nil {
		st.calls = map[string]context.CancelCauseFunc{}
	}
	st.calls[key] = cancel
	st.mu.Unlock()
	return ctx, cancel, func() {
		st.mu.Lock()
		delete(st.calls, key)
		st.mu.Unlock()
		stop()
		cancel(nil)
	}
}

// cancelRequest serves $/cancel_request: it cancels the request in flight
// with that id on this connection, if any.
func (s *Server) cancelRequest(ctx context.Context, p *CancelRequestParams) (any, error) {
	if len(p.RequestID) == 0 {
		return nil, nil
	}
	st := s.state(ctx)
	st.mu.Lock()
	cancel := st.calls[string(p.RequestID)]
	st.mu.Unlock()
	if cancel != nil {
		cancel(errCancelRequest)
	}
	return nil, nil
}

// startTurn registers a turn of session, cancellable by session/cancel.
func (s *Server) startTurn(session string, cancel context.CancelCauseFunc) *turn {
	t := &turn{cancel: cancel}
	s.mu.Lock()
	m := s.turns[session]
	if m == nil {
		m = map[*turn]struct{}{}
		s.turns[session] = m
	}
	m[t] = struct{}{}
	s.mu.Unlock()
	return t
}

func (s *Server) endTurn(session string, t *turn) {
	s.mu.Lock()
	if m := s.turns[session]; m != nil {
		delete(m, t)
		if len(m) == 0 {
			delete(s.turns, session)
		}
	}
	s.mu.Unlock()
}

// cancelTurns cancels the turns of session in progress.
func (s *Server) cancelTurns(session string) {
	s.mu.Lock()
	for t := range s.turns[session] {
		t.cancel(errCancelTurn)
	}
	s.mu.Unlock()
}

// cancelled reports whether ctx was cancelled by session/cancel or
// $/cancel_request.
func cancelled(ctx context.Context) bool {
	c := context.Cause(ctx)
	return c == errCancelTurn || c == errCancelRequest
}
