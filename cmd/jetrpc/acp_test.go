package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/acp"
)

// recorder is an editor that allows every permission and serves files from
// the disk.
type acpEditor struct {
	mu      sync.Mutex
	updates []acp.SessionUpdate
}

func (e *acpEditor) SessionUpdate(_ context.Context, n *acp.SessionNotification) error {
	e.mu.Lock()
	e.updates = append(e.updates, n.Update)
	e.mu.Unlock()
	return nil
}

func (e *acpEditor) RequestPermission(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return &acp.RequestPermissionResponse{Outcome: acp.Selected("allow")}, nil
}

func (e *acpEditor) ReadTextFile(_ context.Context, req *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
	b, err := os.ReadFile(req.Path)
	return &acp.ReadTextFileResponse{Content: string(b)}, err
}

func (e *acpEditor) WriteTextFile(context.Context, *acp.WriteTextFileRequest) (*acp.WriteTextFileResponse, error) {
	return &acp.WriteTextFileResponse{}, nil
}

// TestServeACP: the binary with --stdio --acp is an ACP agent: a whole turn
// (echo, permission, the file read through the editor) and a 20 MiB line,
// then it exits 0 when its stdin closes.
func TestServeACP(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("from the editor"), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr := new(syncBuffer)
	cmd := exec.Command(jetrpcBinary(t), "serve", "--stdio", "--acp")
	cmd.Stderr = stderr
	ed := &acpEditor{}
	c, err := acp.StartAgent(cmd, ed, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	init, err := c.Initialize(ctx, &acp.InitializeRequest{ClientCapabilities: acp.ClientCapabilities{
		FS: acp.FileSystemCapabilities{ReadTextFile: true}}})
	if err != nil || init.ProtocolVersion != 1 || init.AgentInfo == nil {
		t.Fatal(init, err)
	}
	s, err := c.NewSession(ctx, &acp.NewSessionRequest{Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Prompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{
		acp.TextBlock("read this"), acp.ResourceLinkBlock("file://"+file, "notes.txt")}})
	if err != nil || resp.StopReason != acp.StopEndTurn {
		t.Fatal(resp, err)
	}
	last := ed.updates[len(ed.updates)-1]
	if len(ed.updates) != 5 || last.ToolCall.Status != acp.StatusCompleted || last.ToolCall.Content[0].Content.Text != "from the editor" {
		t.Fatalf("updates %+v", ed.updates)
	}
	ed.updates = nil
	big := strings.Repeat("x", 20<<20)
	resp, err = c.Prompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(big)}})
	if err != nil || resp.StopReason != acp.StopEndTurn {
		t.Fatal(resp, err)
	}
	n := 0
	for _, u := range ed.updates {
		n += len(u.Content.Text)
	}
	if n != len(big) {
		t.Fatalf("echoed %d bytes of %d", n, len(big))
	}
	if err := c.Close(); err != nil { // closes stdin: the agent exits 0
		t.Fatalf("exit: %v", err)
	}
}

func TestServeACPUsage(t *testing.T) {
	f := func(want string, args ...string) {
		t.Helper()
		stderr := new(syncBuffer)
		if code := run(context.Background(), append([]string{"serve"}, args...), nil, nil, stderr); code != 2 || !strings.Contains(stderr.String(), want) {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	f("--acp: needs --stdio", "--acp")
}
