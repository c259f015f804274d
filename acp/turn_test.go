package acp_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/acp"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/netserver"
)

// A whole turn of the demo agent: echo, a permission request, the file read
// through the editor, end_turn; every update handled before Prompt returns.
func TestTurn(t *testing.T) {
	ed := &editor{files: map[string]string{"/work/notes.txt": "line one\nline two\n"}}
	c := connect(t, ed, fsCaps)
	sid := newSession(t, c)
	resp, err := c.Prompt(ctxT(t), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{
		acp.TextBlock("hello  world"), acp.ResourceLinkBlock("file:///work/notes.txt", "notes.txt"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != acp.StopEndTurn {
		t.Fatalf("stopReason %q", resp.StopReason)
	}
	want := []string{"agent_message_chunk:hello  ", "agent_message_chunk:world", "tool_call:pending",
		"tool_call_update:in_progress", "tool_call_update:completed"}
	if got := ed.kinds(); !slices.Equal(got, want) {
		t.Fatalf("updates\n got %q\nwant %q", got, want)
	}
	if len(ed.perms) != 1 || ed.perms[0].SessionID != sid || ed.perms[0].ToolCall.ToolCallID != "call_1" ||
		len(ed.perms[0].Options) != 2 {
		t.Fatalf("permission requests %+v", ed.perms)
	}
	if len(ed.reads) != 1 || ed.reads[0].Path != "/work/notes.txt" || ed.reads[0].SessionID != sid {
		t.Fatalf("reads %+v", ed.reads)
	}
	u := ed.updates
	if u[2].Update.ToolCall.Kind != acp.ToolRead || u[2].Update.ToolCall.Locations[0].Path != "/work/notes.txt" {
		t.Fatalf("tool_call %+v", u[2].Update.ToolCall)
	}
	if tc := u[4].Update.ToolCall; len(tc.Content) != 1 || tc.Content[0].Content.Text != "line one\nline two\n" {
		t.Fatalf("completed tool call %+v", tc)
	}
	for _, n := range u {
		if n.SessionID != sid {
			t.Fatalf("update for session %q", n.SessionID)
		}
	}
}

// Without a file, the turn's one tool call is the echo.
func TestTurnEchoTool(t *testing.T) {
	ed := &editor{}
	c := connect(t, ed, acp.ClientCapabilities{})
	sid := newSession(t, c)
	resp, err := c.Prompt(ctxT(t), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextBlock("hi")}})
	if err != nil || resp.StopReason != acp.StopEndTurn {
		t.Fatal(resp, err)
	}
	want := []string{"agent_message_chunk:hi", "tool_call:in_progress", "tool_call_update:completed"}
	if got := ed.kinds(); !slices.Equal(got, want) {
		t.Fatalf("updates %q, want %q", got, want)
	}
	if len(ed.perms) != 0 {
		t.Fatal("asked for permission without a file")
	}
}

// A rejected permission fails the tool call without reading; an editor
// without fs.readTextFile is never asked to read (the agent's tool call
// fails with ErrUnsupported's text).
func TestTurnNoRead(t *testing.T) {
	f := func(name string, caps acp.ClientCapabilities, outcome acp.PermissionOutcome, why string) {
		t.Run(name, func(t *testing.T) {
			ed := &editor{files: map[string]string{"/f": "x"},
				answer: func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome { return outcome }}
			c := connect(t, ed, caps)
			sid := newSession(t, c)
			resp, err := c.Prompt(ctxT(t), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextBlock("read file:///f")}})
			if err != nil || resp.StopReason != acp.StopEndTurn {
				t.Fatal(resp, err)
			}
			last := ed.updates[len(ed.updates)-1].Update.ToolCall
			if last.Status != acp.StatusFailed || !strings.Contains(last.Content[0].Content.Text, why) {
				t.Fatalf("last tool call update %+v", last)
			}
			if len(ed.reads) != 0 {
				t.Fatal("the agent read the file")
			}
		})
	}
	f("rejected", fsCaps, acp.Selected("reject"), "permission denied")
	f("no capability", acp.ClientCapabilities{}, acp.Selected("allow"), acp.ErrUnsupported.Error())
}

// session/cancel while the permission request is pending ends the turn
// "cancelled": the editor cancels and answers the request "cancelled", or
// cancels and does not answer until after the turn ended.
func TestCancel(t *testing.T) {
	t.Run("answered", func(t *testing.T) {
		var c *acp.AgentConn
		ed := &editor{files: map[string]string{"/f": "x"}}
		ed.answer = func(ctx context.Context, req *acp.RequestPermissionRequest) acp.PermissionOutcome {
			if err := c.Cancel(ctx, req.SessionID); err != nil {
				t.Error(err)
			}
			return acp.CancelledOutcome
		}
		c = connect(t, ed, fsCaps)
		sid := newSession(t, c)
		resp, err := c.Prompt(ctxT(t), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextBlock("file:///f")}})
		if err != nil || resp.StopReason != acp.StopCancelled {
			t.Fatal(resp, err)
		}
		if len(ed.reads) != 0 {
			t.Fatal("read after cancel")
		}
	})
	t.Run("unanswered", func(t *testing.T) {
		asked, release := make(chan string), make(chan struct{})
		ed := &editor{files: map[string]string{"/f": "x"}}
		ed.answer = func(ctx context.Context, req *acp.RequestPermissionRequest) acp.PermissionOutcome {
			asked <- req.SessionID
			<-release
			return acp.CancelledOutcome
		}
		c := connect(t, ed, fsCaps)
		sid := newSession(t, c)
		type result struct {
			r   *acp.PromptResponse
			err error
		}
		done := make(chan result, 1)
		go func() {
			r, err := c.Prompt(ctxT(t), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextBlock("file:///f")}})
			done <- result{r, err}
		}()
		<-asked
		if err := c.Cancel(ctxT(t), sid); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // the agent answers meanwhile; Prompt waits for the editor's handler
		close(release)
		r := <-done
		if r.err != nil || r.r.StopReason != acp.StopCancelled {
			t.Fatal(r.r, r.err)
		}
		// the session goes on
		resp, err := c.Prompt(ctxT(t), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextBlock("again")}})
		if err != nil || resp.StopReason != acp.StopEndTurn {
			t.Fatal(resp, err)
		}
	})
}

// A turn of 10,000 updates arrives whole and in order, also when the
// editor reads slowly and the agent's output bound is small (the agent
// waits; nothing is dropped or closed).
func TestManyUpdates(t *testing.T) {
	const n = 10000
	f := func(name string, opts *netserver.Options, slow bool) {
		t.Run(name, func(t *testing.T) {
			ed := &slowEditor{editor: editor{}, slow: slow}
			c := connectTo(t, acpdemoNew(), ed, acp.ClientCapabilities{}, opts)
			sid := newSession(t, c)
			resp, err := c.Prompt(ctxT(t), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextBlock(words(n))}})
			if err != nil || resp.StopReason != acp.StopEndTurn {
				t.Fatal(resp, err)
			}
			got := ed.kinds()
			if len(got) != n+2 {
				t.Fatalf("%d updates, want %d", len(got), n+2)
			}
			for i := range n {
				want := "agent_message_chunk:w" + itoa(i)
				if i < n-1 {
					want += " "
				}
				if got[i] != want {
					t.Fatalf("update %d is %q, want %q", i, got[i], want)
				}
			}
			// and the connection is still up
			if _, err := c.Prompt(ctxT(t), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextBlock("x")}}); err != nil {
				t.Fatal(err)
			}
		})
	}
	f("defaults", nil, false)
	// The prompt (60 KB) counts against MaxPending while it runs: 96 KiB
	// leaves the turn a 36 KiB output window.
	f("slow editor, small output bound", &netserver.Options{MaxMessage: acp.DefaultMaxMessage, MaxPending: 96 << 10}, true)
}

// slowEditor takes a while over some updates.
type slowEditor struct {
	editor
	slow bool
}

func (e *slowEditor) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	if e.slow && len(e.updates)%1000 == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	return e.editor.SessionUpdate(ctx, n)
}

// A 20 MiB line (a prompt holding a 20 MiB text) is accepted and echoed
// whole; the 32 MiB default leaves room for it.
func TestLargeLine(t *testing.T) {
	ed := &editor{}
	c := connect(t, ed, acp.ClientCapabilities{})
	sid := newSession(t, c)
	text := strings.Repeat("abcdefghij", 2<<20) // 20 MiB, one word
	resp, err := c.Prompt(ctxT(t), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil || resp.StopReason != acp.StopEndTurn {
		t.Fatal(resp, err)
	}
	var echoed strings.Builder
	for _, n := range ed.updates {
		if n.Update.Kind == acp.AgentMessageChunk {
			echoed.WriteString(n.Update.Content.Text)
		}
	}
	if echoed.String() != text {
		t.Fatalf("echoed %d bytes, want %d", echoed.Len(), len(text))
	}
}

// A line that is not JSON gets -32700 with id null, and the session goes
// on; a line over the server's limit gets -32600 and is skipped.
func TestBadLines(t *testing.T) {
	raw := newRaw(t, serve(t, acpdemoNew(), &netserver.Options{MaxMessage: 4096}))
	raw.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	raw.until(1)
	raw.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	m, _ := raw.until(2)
	sid := m["result"].(map[string]any)["sessionId"].(string)
	f := func(line string, code float64) {
		t.Helper()
		raw.send(line)
		m := raw.next()
		e, _ := m["error"].(map[string]any)
		if m["id"] != nil || e == nil || e["code"] != code {
			t.Fatalf("%.40q: got %v", line, m)
		}
	}
	f(`this is not json`, -32700)
	f(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{`, -32700)
	f(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"`+strings.Repeat("x", 5000)+`"}]}}`, -32600)
	raw.send(`{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"still here"}]}}`)
	m, before := raw.until(5)
	if m["result"].(map[string]any)["stopReason"] != "end_turn" || len(before) != 4 {
		t.Fatalf("after the bad lines: %v, %d updates", m, len(before))
	}
}

// Requests run concurrently: a second session's turn completes while the
// first one waits for its permission answer.
func TestConcurrentTurns(t *testing.T) {
	raw := newRaw(t, serve(t, acpdemoNew(), nil))
	raw.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}}}}`)
	raw.until(1)
	var sids []string
	for id := 2.0; id <= 3; id++ {
		raw.send(`{"jsonrpc":"2.0","id":` + itoa(int(id)) + `,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
		m, _ := raw.until(id)
		sids = append(sids, m["result"].(map[string]any)["sessionId"].(string))
	}
	raw.send(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"` + sids[0] + `","prompt":[{"type":"text","text":"file:///f"}]}}`)
	var permID any
	for permID == nil {
		if m := raw.next(); m["method"] == "session/request_permission" {
			permID = m["id"]
		}
	}
	raw.send(`{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"` + sids[1] + `","prompt":[{"type":"text","text":"b"}]}}`)
	m, _ := raw.until(5)
	if m["result"].(map[string]any)["stopReason"] != "end_turn" {
		t.Fatal(m)
	}
	raw.send(`{"jsonrpc":"2.0","id":` + jsonOf(permID) + `,"result":{"outcome":{"outcome":"selected","optionId":"reject"}}}`)
	m, _ = raw.until(4)
	if m["result"].(map[string]any)["stopReason"] != "end_turn" {
		t.Fatal(m)
	}
}

// $/cancel_request cancels one request: a prompt ends "cancelled", another
// request answers -32800.
func TestCancelRequest(t *testing.T) {
	raw := newRaw(t, serve(t, &blockingAgent{Agent: acpdemoNew()}, nil))
	raw.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}}}}`)
	raw.until(1)
	raw.send(`{"jsonrpc":"2.0","id":"s","method":"session/new","params":{"cwd":"/block","mcpServers":[]}}`)
	time.Sleep(20 * time.Millisecond)
	raw.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"s"}}`)
	m := raw.next()
	if e, _ := m["error"].(map[string]any); m["id"] != "s" || e == nil || e["code"] != float64(acp.CodeRequestCancelled) {
		t.Fatal(m)
	}
	raw.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	m, _ = raw.until(2)
	sid := m["result"].(map[string]any)["sessionId"].(string)
	raw.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"file:///f"}]}}`)
	for {
		if m := raw.next(); m["method"] == "session/request_permission" {
			break
		}
	}
	raw.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}`)
	m, _ = raw.until(3)
	if m["result"].(map[string]any)["stopReason"] != "cancelled" {
		t.Fatal(m)
	}
}

// blockingAgent's session/new with cwd /block waits for its context.
type blockingAgent struct{ acp.Agent }

func (a *blockingAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	if req.Cwd == "/block" {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return a.Agent.NewSession(ctx, req)
}

// session/load replays the session's turns before it answers; set_mode,
// authenticate and unknown sessions.
func TestSessionMethods(t *testing.T) {
	ed := &editor{}
	c := connect(t, ed, acp.ClientCapabilities{})
	sid := newSession(t, c)
	if _, err := c.Prompt(ctxT(t), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextBlock("first")}}); err != nil {
		t.Fatal(err)
	}
	ed2 := &editor{}
	c2 := connect(t, ed2, acp.ClientCapabilities{}) // another connection to another demo agent: unknown session
	_, err := c2.LoadSession(ctxT(t), &acp.LoadSessionRequest{SessionID: sid, Cwd: "/"})
	var e *encode.Error
	if !errors.As(err, &e) || e.Code != acp.CodeResourceNotFound {
		t.Fatalf("load of an unknown session: %v", err)
	}
	ed.updates = nil
	lr, err := c.LoadSession(ctxT(t), &acp.LoadSessionRequest{SessionID: sid, Cwd: "/"})
	if err != nil || lr.Modes == nil || lr.Modes.CurrentModeID != "ask" {
		t.Fatal(lr, err)
	}
	if got, want := ed.kinds(), []string{"user_message_chunk:first", "agent_message_chunk:first"}; !slices.Equal(got, want) {
		t.Fatalf("replay %q, want %q", got, want)
	}
	if _, err := c.SetSessionMode(ctxT(t), &acp.SetSessionModeRequest{SessionID: sid, ModeID: "code"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetSessionMode(ctxT(t), &acp.SetSessionModeRequest{SessionID: sid, ModeID: "nope"}); !errors.As(err, &e) || e.Code != encode.CodeInvalidParams {
		t.Fatalf("unknown mode: %v", err)
	}
	if _, err := c.SetSessionMode(ctxT(t), &acp.SetSessionModeRequest{ModeID: "code"}); !errors.As(err, &e) || e.Code != encode.CodeInvalidParams {
		t.Fatalf("no session id: %v", err)
	}
	if _, err := c.Authenticate(ctxT(t), &acp.AuthenticateRequest{MethodID: "demo"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prompt(ctxT(t), &acp.PromptRequest{SessionID: "sess_nope", Prompt: []acp.ContentBlock{acp.TextBlock("x")}}); !errors.As(err, &e) || e.Code != acp.CodeResourceNotFound {
		t.Fatalf("prompt of an unknown session: %v", err)
	}
}
