package acp

import (
	"context"

	"github.com/jetrpc/jetrpc/dispatch"
)

// Register registers the agent methods on e: initialize, session/new,
// session/prompt, session/cancel and $/cancel_request, and authenticate,
// session/load and session/set_mode when the Agent implements
// Authenticator, SessionLoader and ModeSetter (else they are -32601).
// Params bind as dispatch.Typed binds them; a missing sessionId is -32602.
func (s *Server) Register(e *dispatch.Engine) error {
	ms := []dispatch.Method{
		{Name: MethodInitialize, Handler: request(s, s.initialize)},
		{Name: MethodSessionNew, Handler: request(s, s.agent.NewSession)},
		{Name: MethodSessionPrompt, Handler: dispatch.Typed(s.prompt)},
		{Name: MethodSessionCancel, Handler: dispatch.Typed(s.cancel)},
		// Cheap (a map look-up and a cancel): on the reading goroutine, so
		// that it takes effect even while notifications queue.
		{Name: MethodCancelRequest, Handler: dispatch.Typed(s.cancelRequest), Inline: true},
	}
	if a, ok := s.agent.(Authenticator); ok {
		ms = append(ms, dispatch.Method{Name: MethodAuthenticate, Handler: request(s, a.Authenticate)})
	}
	if a, ok := s.agent.(SessionLoader); ok {
		ms = append(ms, dispatch.Method{Name: MethodSessionLoad, Handler: request(s,
			func(ctx context.Context, req *LoadSessionRequest) (*LoadSessionResponse, error) {
				if req.SessionID == "" {
					return nil, ErrNoSession
				}
				return a.LoadSession(ctx, req)
			})})
	}
	if a, ok := s.agent.(ModeSetter); ok {
		ms = append(ms, dispatch.Method{Name: MethodSessionSetMode, Handler: request(s,
			func(ctx context.Context, req *SetSessionModeRequest) (*SetSessionModeResponse, error) {
				if req.SessionID == "" {
					return nil, ErrNoSession
				}
				return a.SetSessionMode(ctx, req)
			})})
	}
	for _, m := range ms {
		// The agent's handlers may call the client (permissions, files,
		// terminals): never on the connection's reading goroutine.
		m.CallsPeer = !m.Inline
		if err := e.RegisterMethod(m); err != nil {
			return err
		}
	}
	return nil
}

// request adapts fn to a typed handler whose context $/cancel_request can
// cancel; a cancelled request answers -32800.
func request[P, R any](s *Server, fn func(context.Context, P) (R, error)) dispatch.Handler {
	return dispatch.Typed(func(ctx context.Context, p P) (R, error) {
		ctx, _, done := s.track(ctx)
		defer done()
		r, err := fn(ctx, p)
		if cancelled(ctx) {
			var zero R
			return zero, errCancelled
		}
		return r, err
	})
}

func (s *Server) initialize(ctx context.Context, req *InitializeRequest) (*InitializeResponse, error) {
	st := s.state(ctx)
	st.mu.Lock()
	st.caps = req.ClientCapabilities
	st.mu.Unlock()
	resp, err := s.agent.Initialize(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	if resp.ProtocolVersion == 0 {
		resp.ProtocolVersion = ProtocolVersion
	}
	if resp.AuthMethods == nil {
		resp.AuthMethods = []AuthMethod{}
	}
	return resp, nil
}

// prompt runs a turn that session/cancel and $/cancel_request can cancel;
// a cancelled turn ends "cancelled" (the spec asks agents to turn the
// errors of aborted work into that stop reason).
func (s *Server) prompt(ctx context.Context, req *PromptRequest) (*PromptResponse, error) {
	if req.SessionID == "" {
		return nil, ErrNoSession
	}
	ctx, cancel, done := s.track(ctx)
	defer done()
	t := s.startTurn(req.SessionID, cancel)
	defer s.endTurn(req.SessionID, t)
	resp, err := s.agent.Prompt(ctx, req)
	switch {
	case cancelled(ctx):
		return &PromptResponse{StopReason: StopCancelled}, nil
	case err == nil && resp == nil:
		resp = &PromptResponse{StopReason: StopEndTurn}
	}
	return resp, err
}

// cancel serves session/cancel.
func (s *Server) cancel(ctx context.Context, n *CancelNotification) (any, error) {
	if n.SessionID == "" {
		return nil, nil
	}
	s.cancelTurns(n.SessionID)
	if err := s.agent.Cancel(ctx, n); err != nil {
		s.log.Warn("acp: Cancel failed", "session", n.SessionID, "err", err)
	}
	return nil, nil
}
