// Package acpdemo is the demo ACP agent of jetrpc serve --stdio --acp: an
// echo agent that shows every part of a prompt turn.
//
// A turn of the demo agent:
//
//  1. echoes each text block of the prompt as agent_message_chunk updates,
//     a word (with the spaces after it) per update, at most 64 KiB each;
//  2. reports one tool call: when the prompt names a file (a resource_link
//     block, or a word of the text, with a file:// URI), a "read" tool call:
//     tool_call (pending), session/request_permission (allow or reject),
//     then, if allowed, tool_call_update (in_progress), fs/read_text_file
//     and tool_call_update (completed, with the file's text as content),
//     or tool_call_update (failed) when rejected or the read fails; without
//     a file, an "echo" tool call: tool_call (in_progress), then
//     tool_call_update (completed);
//  3. returns stopReason end_turn. A session/cancel during the turn ends
//     it with cancelled (also while the permission request is pending).
//
// It also serves authenticate (method "demo", which needs nothing),
// session/load (replaying the session's earlier turns as
// user_message_chunk and agent_message_chunk updates) and session/set_mode
// (modes "ask" and "code").
package acpdemo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/jetrpc/jetrpc/acp"
	"github.com/jetrpc/jetrpc/encode"
)

// MaxChunk is the most bytes of text one agent_message_chunk carries.
const MaxChunk = 64 << 10

// errCancelled: the client answered a permission request "cancelled".
var errCancelled = errors.New("acpdemo: turn cancelled by the client")

// Agent is the demo agent; its zero value is not usable, call New.
type Agent struct {
	Info acp.Implementation

	mu       sync.Mutex
	sessions map[string]*session
}

type session struct {
	mu      sync.Mutex
	mode    string
	history []exchange
	calls   int
}

// exchange is one past turn: what the user said and what the agent echoed.
type exchange struct{ user, agent string }

// New returns the demo agent.
func New(version string) *Agent {
	return &Agent{
		Info:     acp.Implementation{Name: "jetrpc-demo", Title: "jetrpc demo agent", Version: version},
		sessions: map[string]*session{},
	}
}

var (
	_ acp.Agent         = (*Agent)(nil)
	_ acp.Authenticator = (*Agent)(nil)
	_ acp.SessionLoader = (*Agent)(nil)
	_ acp.ModeSetter    = (*Agent)(nil)
)

// Modes of a demo session.
var modes = []acp.SessionMode{
	{ID: "ask", Name: "Ask", Description: "Ask before reading files"},
	{ID: "code", Name: "Code", Description: "Same as ask: the demo always asks"},
}

// Initialize answers protocol version 1 whatever the client asked for.
func (a *Agent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	info := a.Info
	return &acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersion,
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true},
		},
		AuthMethods: []acp.AuthMethod{{ID: "demo", Name: "Demo", Description: "Needs no credentials"}},
		AgentInfo:   &info,
	}, nil
}

// Authenticate accepts the method "demo".
func (a *Agent) Authenticate(ctx context.Context, req *acp.AuthenticateRequest) (*acp.AuthenticateResponse, error) {
	if req.MethodID != "demo" {
		return nil, acp.InvalidParams("unknown auth method " + strconv.Quote(req.MethodID))
	}
	return &acp.AuthenticateResponse{}, nil
}

// NewSession creates a session in mode "ask".
func (a *Agent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	var b [12]byte
	rand.Read(b[:])
	id := "sess_" + hex.EncodeToString(b[:])
	s := &session{mode: "ask"}
	a.mu.Lock()
	a.sessions[id] = s
	a.mu.Unlock()
	return &acp.NewSessionResponse{SessionID: id, Modes: s.modes()}, nil
}

func (s *session) modes() *acp.SessionModeState {
	return &acp.SessionModeState{CurrentModeID: s.mode, AvailableModes: modes}
}

func (a *Agent) session(id string) (*session, error) {
	a.mu.Lock()
	s := a.sessions[id]
	a.mu.Unlock()
	if s == nil {
		return nil, acp.NotFound(encode.AppendString(nil, id))
	}
	return s, nil
}

// LoadSession replays the session's turns.
func (a *Agent) LoadSession(ctx context.Context, req *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	s, err := a.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	history := append([]exchange(nil), s.history...)
	modes := s.modes()
	s.mu.Unlock()
	c := acp.ClientOf(ctx)
	for _, x := range history {
		if err := c.Update(ctx, req.SessionID, acp.UserMessage(acp.TextBlock(x.user))); err != nil {
			return nil, err
		}
		if err := c.Update(ctx, req.SessionID, acp.AgentMessage(acp.TextBlock(x.agent))); err != nil {
			return nil, err
		}
	}
	return &acp.LoadSessionResponse{Modes: modes}, nil
}

// SetSessionMode switches between "ask" and "code".
func (a *Agent) SetSessionMode(ctx context.Context, req *acp.SetSessionModeRequest) (*acp.SetSessionModeResponse, error) {
	s, err := a.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	if req.ModeID != "ask" && req.ModeID != "code" {
		return nil, acp.InvalidParams("unknown mode " + strconv.Quote(req.ModeID))
	}
	s.mu.Lock()
	s.mode = req.ModeID
	s.mu.Unlock()
	return &acp.SetSessionModeResponse{}, nil
}

// Cancel needs nothing more: the Server cancelled the turn's context.
func (a *Agent) Cancel(ctx context.Context, n *acp.CancelNotification) error { return nil }

// Prompt runs a turn (see the package documentation).
func (a *Agent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	s, err := a.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.calls++
	n := s.calls
	s.mu.Unlock()
	t := &turnState{c: acp.ClientOf(ctx), sid: req.SessionID, msgID: "msg_" + strconv.Itoa(n),
		callID: "call_" + strconv.Itoa(n)}
	var user strings.Builder
	file := ""
	for i := range req.Prompt {
		b := &req.Prompt[i]
		switch b.Type {
		case "text":
			user.WriteString(b.Text)
			if err := t.echo(ctx, b.Text); err != nil {
				return nil, err
			}
			if file == "" {
				file = fileInText(b.Text)
			}
		case "resource_link":
			if p := filePath(b.URI); p != "" && file == "" {
				file = p
			}
		}
	}
	if file != "" {
		err = t.readFile(ctx, file)
	} else {
		err = t.echoTool(ctx)
	}
	if err == errCancelled {
		return &acp.PromptResponse{StopReason: acp.StopCancelled}, nil
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.history = append(s.history, exchange{user: user.String(), agent: user.String()})
	s.mu.Unlock()
	return &acp.PromptResponse{StopReason: acp.StopEndTurn}, nil
}

// turnState is what one turn sends with.
type turnState struct {
	c      acp.ClientConn
	sid    string
	msgID  string
	callID string
	chunks int
}

func (t *turnState) update(ctx context.Context, u acp.SessionUpdate) error {
	return t.c.Update(ctx, t.sid, u)
}

// echo sends text back a word (and the spaces after it) at a time.
func (t *turnState) echo(ctx context.Context, text string) error {
	for text != "" {
		if err := ctx.Err(); err != nil {
			return err // session/cancel: the Server answers "cancelled"
		}
		n := wordEnd(text)
		u := acp.AgentMessage(acp.TextBlock(text[:n]))
		u.MessageID = t.msgID
		if err := t.update(ctx, u); err != nil {
			return err
		}
		t.chunks++
		text = text[n:]
	}
	return nil
}

// wordEnd returns the length of the first chunk of text: its first word
// and the whitespace after it, at most MaxChunk bytes, cut at a rune
// boundary.
func wordEnd(text string) int {
	n := min(len(text), MaxChunk)
	i := 0
	for i < n && !isSpace(text[i]) {
		i++
	}
	for i < n && isSpace(text[i]) {
		i++
	}
	if i == MaxChunk && i < len(text) {
		for i > 1 && !utf8.RuneStart(text[i]) {
			i--
		}
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// echoTool reports the echo as one tool call.
func (t *turnState) echoTool(ctx context.Context) error {
	err := t.update(ctx, acp.StartToolCall(acp.ToolCall{ToolCallID: t.callID, Title: "Echo the prompt",
		Kind: acp.ToolOther, Status: acp.StatusInProgress}))
	if err != nil {
		return err
	}
	out, _ := json.Marshal(map[string]int{"chunks": t.chunks})
	return t.update(ctx, acp.UpdateToolCall(acp.ToolCall{ToolCallID: t.callID, Status: acp.StatusCompleted,
		RawOutput: out}))
}

// readFile asks for permission, then reads path through the client.
func (t *turnState) readFile(ctx context.Context, path string) error {
	input, _ := json.Marshal(map[string]string{"path": path})
	err := t.update(ctx, acp.StartToolCall(acp.ToolCall{ToolCallID: t.callID, Title: "Read " + path,
		Kind: acp.ToolRead, Status: acp.StatusPending, Locations: []acp.ToolCallLocation{{Path: path}},
		RawInput: input}))
	if err != nil {
		return err
	}
	perm, err := t.c.RequestPermission(ctx, &acp.RequestPermissionRequest{
		SessionID: t.sid,
		ToolCall:  acp.ToolCall{ToolCallID: t.callID, Title: "Read " + path, Kind: acp.ToolRead},
		Options: []acp.PermissionOption{
			{OptionID: "allow", Name: "Allow", Kind: acp.AllowOnce},
			{OptionID: "reject", Name: "Reject", Kind: acp.RejectOnce},
		},
	})
	switch {
	case err != nil:
		return err
	case perm.Outcome.Outcome == "cancelled":
		return errCancelled // the client cancelled the turn (its session/cancel may still be on its way)
	case perm.Outcome.Selected() != "allow":
		return t.fail(ctx, "permission denied")
	}
	if err := t.update(ctx, acp.UpdateToolCall(acp.ToolCall{ToolCallID: t.callID, Status: acp.StatusInProgress})); err != nil {
		return err
	}
	f, err := t.c.ReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: t.sid, Path: path})
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return t.fail(ctx, err.Error())
	}
	return t.update(ctx, acp.UpdateToolCall(acp.ToolCall{ToolCallID: t.callID, Status: acp.StatusCompleted,
		Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(f.Content))}}))
}

func (t *turnState) fail(ctx context.Context, why string) error {
	return t.update(ctx, acp.UpdateToolCall(acp.ToolCall{ToolCallID: t.callID, Status: acp.StatusFailed,
		Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(why))}}))
}

// fileInText returns the path of the first file:// URI among the words of
// text.
func fileInText(text string) string {
	if !strings.Contains(text, "file://") {
		return ""
	}
	for _, w := range strings.Fields(text) {
		if p := filePath(w); p != "" {
			return p
		}
	}
	return ""
}

// filePath returns the absolute path of a file:// URI, or "".
func filePath(uri string) string {
	if !strings.HasPrefix(uri, "file://") {
		return ""
	}
	u, err := url.Parse(uri)
	if err != nil || !strings.HasPrefix(u.Path, "/") {
		return ""
	}
	return u.Path
}
