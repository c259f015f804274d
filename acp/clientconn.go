package acp

import (
	"context"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/pool"
)

// ClientConn is the client (the editor) as an agent's handler sees it: its
// capabilities and the methods it serves. Get it with ClientOf; its methods
// are safe for concurrent use and need the context of a handler of the
// connection (or one derived from it).
type ClientConn struct {
	peer *dispatch.Peer
	st   *connState
}

// ClientOf returns the client of the connection a handler's request came
// on. Over a transport that cannot send to the client (a plain HTTP POST)
// its methods fail with dispatch.ErrNoPeer.
func (s *Server) ClientOf(ctx context.Context) ClientConn {
	return ClientConn{peer: dispatch.PeerOf(ctx), st: s.state(ctx)}
}

// ClientOf is Server.ClientOf for the Server serving ctx's request.
func ClientOf(ctx context.Context) ClientConn {
	s, _ := ctx.Value(serverKey{}).(*Server)
	if s == nil {
		return ClientConn{peer: dispatch.PeerOf(ctx), st: new(connState)}
	}
	return s.ClientOf(ctx)
}

type serverKey struct{}

// Capabilities returns what the client declared in initialize.
func (c ClientConn) Capabilities() ClientCapabilities {
	c.st.mu.Lock()
	defer c.st.mu.Unlock()
	return c.st.caps
}

// Update sends a session/update notification. Updates reach the client in
// the order of the Update calls that sent them (those of one goroutine in
// program order). When the client reads slowly, Update waits for room in
// the connection's output (netserver's MaxPending) rather than dropping or
// queueing without bound; it fails once the connection is gone or ctx ends.
func (c ClientConn) Update(ctx context.Context, sessionID string, u SessionUpdate) error {
	b := pool.GetBuffer()
	b.B = appendNotification(b.B[:0], sessionID, &u, nil)
	err := c.peer.NotifyRaw(ctx, MethodSessionUpdate, b.B)
	pool.PutBuffer(b)
	return err
}

// RequestPermission asks the user whether a tool call may run. When the
// turn is cancelled meanwhile, ctx ends and the call returns ctx's error
// (the client answers "cancelled" too, but its answer is no longer
// awaited).
func (c ClientConn) RequestPermission(ctx context.Context, req *RequestPermissionRequest) (*RequestPermissionResponse, error) {
	resp := new(RequestPermissionResponse)
	return resp, c.peer.Call(ctx, MethodRequestPermission, req, resp)
}

// ReadTextFile reads a file of the client (fs/read_text_file); without the
// client's fs.readTextFile capability it returns ErrUnsupported.
func (c ClientConn) ReadTextFile(ctx context.Context, req *ReadTextFileRequest) (*ReadTextFileResponse, error) {
	if !c.Capabilities().FS.ReadTextFile {
		return nil, ErrUnsupported
	}
	resp := new(ReadTextFileResponse)
	return resp, c.peer.Call(ctx, MethodReadTextFile, req, resp)
}

// WriteTextFile writes a file of the client (fs/write_text_file); without
// the client's fs.writeTextFile capability it returns ErrUnsupported.
func (c ClientConn) WriteTextFile(ctx context.Context, req *WriteTextFileRequest) error {
	if !c.Capabilities().FS.WriteTextFile {
		return ErrUnsupported
	}
	return c.peer.Call(ctx, MethodWriteTextFile, req, nil)
}

// CreateTerminal runs a command in a terminal of the client
// (terminal/create); without the terminal capability it returns
// ErrUnsupported. Release the terminal when done.
func (c ClientConn) CreateTerminal(ctx context.Context, req *CreateTerminalRequest) (*CreateTerminalResponse, error) {
	if err := c.terminals(); err != nil {
		return nil, err
	}
	resp := new(CreateTerminalResponse)
	return resp, c.peer.Call(ctx, MethodTerminalCreate, req, resp)
}

// TerminalOutput returns a terminal's output so far (terminal/output).
func (c ClientConn) TerminalOutput(ctx context.Context, req *TerminalRequest) (*TerminalOutputResponse, error) {
	if err := c.terminals(); err != nil {
		return nil, err
	}
	resp := new(TerminalOutputResponse)
	return resp, c.peer.Call(ctx, MethodTerminalOutput, req, resp)
}

// WaitForTerminalExit waits for a terminal's command to exit
// (terminal/wait_for_exit).
func (c ClientConn) WaitForTerminalExit(ctx context.Context, req *TerminalRequest) (*TerminalExitStatus, error) {
	if err := c.terminals(); err != nil {
		return nil, err
	}
	resp := new(TerminalExitStatus)
	return resp, c.peer.Call(ctx, MethodTerminalWait, req, resp)
}

// KillTerminal kills a terminal's command, keeping the terminal
// (terminal/kill).
func (c ClientConn) KillTerminal(ctx context.Context, req *TerminalRequest) error {
	if err := c.terminals(); err != nil {
		return err
	}
	return c.peer.Call(ctx, MethodTerminalKill, req, nil)
}

// ReleaseTerminal kills a terminal's command if it still runs and frees the
// terminal (terminal/release).
func (c ClientConn) ReleaseTerminal(ctx context.Context, req *TerminalRequest) error {
	if err := c.terminals(); err != nil {
		return err
	}
	return c.peer.Call(ctx, MethodTerminalRelease, req, nil)
}

func (c ClientConn) terminals() error {
	if !c.Capabilities().Terminal {
		return ErrUnsupported
	}
	return nil
}
