package acp

// NOTE: the editor side. An AgentConn is a client.Client (the pending table,
// write combining and framing of package client) whose Handler is an engine
// with the client methods registered as Typed handlers around the editor's
// Client. The agent's messages are handled one at a time in arrival order,
// so updates keep their order; Prompt and LoadSession call Sync after the
// answer, so that they return only once the updates sent before it have
// been handled.

import (
	"context"
	"io"
	"log/slog"
	"os/exec"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
)

// Client is an ACP client (an editor): what every agent may call.
type Client interface {
	// SessionUpdate handles a session/update notification. Updates come
	// one at a time, in the order the agent sent them.
	SessionUpdate(ctx context.Context, n *SessionNotification) error
	// RequestPermission asks the user whether a tool call may run. When the
	// editor has cancelled the turn it must answer CancelledOutcome.
	RequestPermission(ctx context.Context, req *RequestPermissionRequest) (*RequestPermissionResponse, error)
}

// FileSystem is a Client that serves fs/read_text_file and
// fs/write_text_file (declare them in InitializeRequest.ClientCapabilities).
type FileSystem interface {
	ReadTextFile(ctx context.Context, req *ReadTextFileRequest) (*ReadTextFileResponse, error)
	WriteTextFile(ctx context.Context, req *WriteTextFileRequest) (*WriteTextFileResponse, error)
}

// Terminals is a Client that serves the terminal/* methods (declare
// Terminal in the capabilities).
type Terminals interface {
	CreateTerminal(ctx context.Context, req *CreateTerminalRequest) (*CreateTerminalResponse, error)
	TerminalOutput(ctx context.Context, req *TerminalRequest) (*TerminalOutputResponse, error)
	WaitForTerminalExit(ctx context.Context, req *TerminalRequest) (*TerminalExitStatus, error)
	KillTerminal(ctx context.Context, req *TerminalRequest) (*Empty, error)
	ReleaseTerminal(ctx context.Context, req *TerminalRequest) (*Empty, error)
}

// ClientOptions configures an AgentConn. A nil *ClientOptions means the
// defaults.
type ClientOptions struct {
	// MaxMessage is the longest line either way (default
	// DefaultMaxMessage, 32 MiB). A longer line from the agent closes the
	// connection (the client cannot tell what it was).
	MaxMessage int
	// Logger receives the connection's events (default slog.Default()).
	Logger *slog.Logger
}

func (o *ClientOptions) client(h client.Handler) *client.Options {
	co := &client.Options{Framing: frame.NDJSON, MaxMessage: DefaultMaxMessage, Handler: h}
	if o != nil {
		if o.MaxMessage > 0 {
			co.MaxMessage = o.MaxMessage
		}
		co.Logger = o.Logger
	}
	return co
}

// AgentConn is an editor's connection to an agent: it calls the agent's
// methods and serves the editor's Client to it. Safe for concurrent use.
type AgentConn struct {
	c *client.Client
	e *dispatch.Engine
}

// StartAgent starts the agent program cmd and connects to it over its
// stdin and stdout (cmd.Stdin and cmd.Stdout must be nil; cmd.Stderr is
// left as it is). Close closes its stdin and waits for it to exit.
func StartAgent(cmd *exec.Cmd, cl Client, opts *ClientOptions) (*AgentConn, error) {
	e, err := clientEngine(cl, opts)
	if err != nil {
		return nil, err
	}
	c, err := client.NewStdio(cmd, opts.client(e))
	if err != nil {
		e.Close()
		return nil, err
	}
	return &AgentConn{c: c, e: e}, nil
}

// NewAgentConn connects to an agent over rw (a pipe, a socket).
func NewAgentConn(rw io.ReadWriteCloser, cl Client, opts *ClientOptions) (*AgentConn, error) {
	e, err := clientEngine(cl, opts)
	if err != nil {
		return nil, err
	}
	return &AgentConn{c: client.NewConn(rw, opts.client(e)), e: e}, nil
}

// clientEngine registers the client methods cl serves.
func clientEngine(cl Client, opts *ClientOptions) (*dispatch.Engine, error) {
	var log *slog.Logger
	if opts != nil {
		log = opts.Logger
	}
	e := dispatch.New(&dispatch.Options{Logger: log, Codes: EngineCodes()})
	ms := []dispatch.Method{
		{Name: MethodSessionUpdate, Handler: dispatch.Typed(func(ctx context.Context, n *SessionNotification) (any, error) {
			return nil, cl.SessionUpdate(ctx, n)
		})},
		{Name: MethodRequestPermission, Handler: dispatch.Typed(cl.RequestPermission)},
	}
	if fs, ok := cl.(FileSystem); ok {
		ms = append(ms, dispatch.Method{Name: MethodReadTextFile, Handler: dispatch.Typed(fs.ReadTextFile)},
			dispatch.Method{Name: MethodWriteTextFile, Handler: dispatch.Typed(fs.WriteTextFile)})
	}
	if t, ok := cl.(Terminals); ok {
		ms = append(ms, dispatch.Method{Name: MethodTerminalCreate, Handler: dispatch.Typed(t.CreateTerminal)},
			dispatch.Method{Name: MethodTerminalOutput, Handler: dispatch.Typed(t.TerminalOutput)},
			dispatch.Method{Name: MethodTerminalWait, Handler: dispatch.Typed(t.WaitForTerminalExit)},
			dispatch.Method{Name: MethodTerminalKill, Handler: dispatch.Typed(t.KillTerminal)},
			dispatch.Method{Name: MethodTerminalRelease, Handler: dispatch.Typed(t.ReleaseTerminal)})
	}
	for _, m := range ms {
		if err := e.RegisterMethod(m); err != nil {
			e.Close()
			return nil, err
		}
	}
	return e, nil
}

// Conn returns the underlying JSON-RPC client (for extension methods).
func (a *AgentConn) Conn() *client.Client { return a.c }

// Close closes the connection (StartAgent: the agent's stdin, then waits
// for it to exit).
func (a *AgentConn) Close() error {
	err := a.c.Close()
	a.e.Close()
	return err
}

// Initialize opens the connection. Fill in ProtocolVersion (0 means
// ProtocolVersion) and the capabilities the Client serves.
func (a *AgentConn) Initialize(ctx context.Context, req *InitializeRequest) (*InitializeResponse, error) {
	if req.ProtocolVersion == 0 {
		r := *req
		r.ProtocolVersion = ProtocolVersion
		req = &r
	}
	resp := new(InitializeResponse)
	return resp, a.c.Call(ctx, MethodInitialize, req, resp)
}

// Authenticate authenticates with one of the agent's AuthMethods.
func (a *AgentConn) Authenticate(ctx context.Context, req *AuthenticateRequest) (*AuthenticateResponse, error) {
	resp := new(AuthenticateResponse)
	return resp, a.c.Call(ctx, MethodAuthenticate, req, resp)
}

// NewSession creates a session (nil MCPServers are sent as []).
func (a *AgentConn) NewSession(ctx context.Context, req *NewSessionRequest) (*NewSessionResponse, error) {
	if req.MCPServers == nil {
		r := *req
		r.MCPServers = []MCPServer{}
		req = &r
	}
	resp := new(NewSessionResponse)
	return resp, a.c.Call(ctx, MethodSessionNew, req, resp)
}

// LoadSession loads a session; it returns once the history the agent
// replayed before its answer has been handled by SessionUpdate.
func (a *AgentConn) LoadSession(ctx context.Context, req *LoadSessionRequest) (*LoadSessionResponse, error) {
	if req.MCPServers == nil {
		r := *req
		r.MCPServers = []MCPServer{}
		req = &r
	}
	resp := new(LoadSessionResponse)
	if err := a.c.Call(ctx, MethodSessionLoad, req, resp); err != nil {
		return nil, err
	}
	return resp, a.c.Sync(ctx)
}

// Prompt runs a prompt turn; it returns once the updates the agent sent
// before its answer have been handled by SessionUpdate.
func (a *AgentConn) Prompt(ctx context.Context, req *PromptRequest) (*PromptResponse, error) {
	resp := new(PromptResponse)
	if err := a.c.Call(ctx, MethodSessionPrompt, req, resp); err != nil {
		return nil, err
	}
	return resp, a.c.Sync(ctx)
}

// Cancel cancels the session's turn in progress (session/cancel); its
// Prompt then returns StopCancelled. Answer the permission requests still
// pending with CancelledOutcome.
func (a *AgentConn) Cancel(ctx context.Context, sessionID string) error {
	return a.c.Notify(ctx, MethodSessionCancel, &CancelNotification{SessionID: sessionID})
}

// SetSessionMode switches a session's mode.
func (a *AgentConn) SetSessionMode(ctx context.Context, req *SetSessionModeRequest) (*SetSessionModeResponse, error) {
	resp := new(SetSessionModeResponse)
	return resp, a.c.Call(ctx, MethodSessionSetMode, req, resp)
}
