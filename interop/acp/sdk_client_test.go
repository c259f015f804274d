package interop

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// sdkEditor is an editor written on acp-go-sdk: it records the updates,
// answers permission requests with answer, and reads files from the disk.
type sdkEditor struct {
	mu      sync.Mutex
	updates []acp.SessionUpdate
	perms   int
	reads   []string
	answer  func(ctx context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionOutcome
}

var _ acp.Client = (*sdkEditor)(nil)

func (e *sdkEditor) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	e.mu.Lock()
	e.updates = append(e.updates, n.Update)
	e.mu.Unlock()
	return nil
}

func (e *sdkEditor) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.perms++
	e.mu.Unlock()
	return acp.RequestPermissionResponse{Outcome: e.answer(ctx, req)}, nil
}

func (e *sdkEditor) ReadTextFile(_ context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	e.mu.Lock()
	e.reads = append(e.reads, req.Path)
	e.mu.Unlock()
	b, err := os.ReadFile(req.Path)
	return acp.ReadTextFileResponse{Content: string(b)}, err
}

func (e *sdkEditor) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, nil
}

func (e *sdkEditor) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalCreate)
}

func (e *sdkEditor) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalKill)
}

func (e *sdkEditor) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalOutput)
}

func (e *sdkEditor) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalRelease)
}

func (e *sdkEditor) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalWaitForExit)
}

// kinds names the updates: "agent_message_chunk:read ", "tool_call:pending".
func (e *sdkEditor) kinds() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, u := range e.updates {
		switch {
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			out = append(out, "agent_message_chunk:"+u.AgentMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			out = append(out, "tool_call:"+string(u.ToolCall.Status))
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
			out = append(out, "tool_call_update:"+string(*u.ToolCallUpdate.Status))
		default:
			out = append(out, "other")
		}
	}
	return out
}

func allow(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
	return acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{OptionId: "allow"}}
}

// TestSDKClientTurn: acp-go-sdk's client drives jetrpc serve --stdio --acp
// through a whole turn (the echo, the tool call, the permission request,
// the file read through the editor, end_turn), then a turn it cancels
// while the agent waits for permission.
func TestSDKClientTurn(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("the editor's text"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startAgent(t, jetrpcBin, "serve", "--stdio", "--acp")
	ed := &sdkEditor{answer: allow}
	conn := acp.NewClientSideConnection(ed, p.stdin, p.stdout)
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()

	init, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true}},
		ClientInfo:         &acp.Implementation{Name: "acp-go-sdk-test", Version: "0.13.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if init.ProtocolVersion != 1 || !init.AgentCapabilities.LoadSession || init.AgentInfo == nil || init.AgentInfo.Name != "jetrpc-demo" {
		t.Fatalf("initialize: %+v", init)
	}
	s, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/", McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Modes == nil || s.Modes.CurrentModeId != "ask" {
		t.Fatalf("session/new: %+v", s)
	}
	resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{
		acp.TextBlock("please read"), acp.ResourceLinkBlock("notes.txt", "file://"+file)}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("stopReason %q", resp.StopReason)
	}
	want := []string{"agent_message_chunk:please ", "agent_message_chunk:read", "tool_call:pending",
		"tool_call_update:in_progress", "tool_call_update:completed"}
	if got := ed.kinds(); !slices.Equal(got, want) {
		t.Fatalf("updates\n got %q\nwant %q", got, want)
	}
	last := ed.updates[len(ed.updates)-1].ToolCallUpdate
	if c := last.Content; len(c) != 1 || c[0].Content == nil || c[0].Content.Content.Text == nil || c[0].Content.Content.Text.Text != "the editor's text" {
		t.Fatalf("the completed tool call's content: %+v", c)
	}
	if ed.perms != 1 || !slices.Equal(ed.reads, []string{file}) {
		t.Fatalf("permission requests %d, reads %q", ed.perms, ed.reads)
	}

	// cancel while the permission request is pending: the client sends
	// session/cancel and answers the request "cancelled"
	ed.answer = func(ctx context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
		if err := conn.Cancel(ctx, acp.CancelNotification{SessionId: req.SessionId}); err != nil {
			t.Error(err)
		}
		return acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}
	}
	resp, err = conn.Prompt(ctx, acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{
		acp.TextBlock("file://" + file)}})
	if err != nil || resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("cancelled turn: %+v %v", resp, err)
	}
	if len(ed.reads) != 1 {
		t.Fatal("the file was read after the cancel")
	}
	// and the session goes on
	resp, err = conn.Prompt(ctx, acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("again")}})
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("after the cancel: %+v %v", resp, err)
	}
}
