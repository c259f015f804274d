package acp_test

// NOTE: the tests run the demo agent (or an agent of their own) on
// netserver's stdio serving over in-memory pipes, as jetrpc serve --stdio
// --acp runs it, and talk to it with this package's AgentConn or with raw
// NDJSON lines (rawConn) where the wire itself is what is tested.

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/acp"
	"github.com/jetrpc/jetrpc/acp/acpdemo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
)

// pipes is a duplex in-memory connection: one end for the agent, one for
// the client.
type end struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (e *end) Close() error {
	for _, c := range e.closers {
		c.Close()
	}
	return nil
}

func pipes() (agent, client *end) {
	ar, cw := io.Pipe() // client -> agent
	cr, aw := io.Pipe() // agent -> client
	return &end{Reader: ar, Writer: aw, closers: []io.Closer{ar, aw}},
		&end{Reader: cr, Writer: cw, closers: []io.Closer{cr, cw}}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// serve runs agent a on the agent end of a new pipe pair, as jetrpc serve
// --stdio --acp does, with opts (nil: the ACP defaults); it returns the
// client end. The server stops when the test ends.
func serve(t *testing.T, a acp.Agent, opts *netserver.Options) *end {
	t.Helper()
	e := dispatch.New(&dispatch.Options{Logger: quiet})
	srv := acp.NewServer(a, &acp.Options{Logger: quiet})
	if err := srv.Register(e); err != nil {
		t.Fatal(err)
	}
	o := netserver.Options{}
	if opts != nil {
		o = *opts
	}
	o.Logger = quiet
	ns := srv.StreamServer(e, &o)
	ag, cl := pipes()
	done := make(chan error, 1)
	go func() { done <- ns.ServeStdio(ag.Reader, ag.Writer) }()
	t.Cleanup(func() {
		cl.Close()
		ag.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ns.Shutdown(ctx)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("the agent's server did not stop")
		}
		e.Close()
	})
	return cl
}

// connect returns an AgentConn to the demo agent for editor cl, initialized
// with caps.
func connect(t *testing.T, cl acp.Client, caps acp.ClientCapabilities) *acp.AgentConn {
	t.Helper()
	return connectTo(t, acpdemo.New("test"), cl, caps, nil)
}

func connectTo(t *testing.T, a acp.Agent, cl acp.Client, caps acp.ClientCapabilities, opts *netserver.Options) *acp.AgentConn {
	t.Helper()
	c, err := acp.NewAgentConn(serve(t, a, opts), cl, &acp.ClientOptions{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	resp, err := c.Initialize(ctxT(t), &acp.InitializeRequest{ClientCapabilities: caps,
		ClientInfo: &acp.Implementation{Name: "acp-test", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.ProtocolVersion != acp.ProtocolVersion {
		t.Fatalf("protocolVersion %d", resp.ProtocolVersion)
	}
	return c
}

// ctxT is a context that ends with the test, bounded.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newSession(t *testing.T, c *acp.AgentConn) string {
	t.Helper()
	s, err := c.NewSession(ctxT(t), &acp.NewSessionRequest{Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	return s.SessionID
}

// editor is a Client that records what it is sent and answers from its
// fields.
type editor struct {
	mu      sync.Mutex
	updates []acp.SessionNotification
	perms   []acp.RequestPermissionRequest
	reads   []acp.ReadTextFileRequest

	answer func(ctx context.Context, req *acp.RequestPermissionRequest) acp.PermissionOutcome // nil: allow
	files  map[string]string
}

func (e *editor) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	e.mu.Lock()
	e.updates = append(e.updates, *n)
	e.mu.Unlock()
	return nil
}

func (e *editor) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.perms = append(e.perms, *req)
	e.mu.Unlock()
	if e.answer != nil {
		return &acp.RequestPermissionResponse{Outcome: e.answer(ctx, req)}, nil
	}
	return &acp.RequestPermissionResponse{Outcome: acp.Selected("allow")}, nil
}

func (e *editor) ReadTextFile(ctx context.Context, req *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
	e.mu.Lock()
	e.reads = append(e.reads, *req)
	text, ok := e.files[req.Path]
	e.mu.Unlock()
	if !ok {
		return nil, acp.NotFound([]byte(`"no such file"`))
	}
	return &acp.ReadTextFileResponse{Content: text}, nil
}

func (e *editor) WriteTextFile(ctx context.Context, req *acp.WriteTextFileRequest) (*acp.WriteTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.files[req.Path] = req.Content
	return &acp.WriteTextFileResponse{}, nil
}

// kinds returns the kinds of the updates received, with the text of
// message chunks and the status of tool calls: "agent_message_chunk:hello ".
func (e *editor) kinds() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, n := range e.updates {
		u := n.Update
		s := string(u.Kind)
		switch u.Kind {
		case acp.AgentMessageChunk, acp.UserMessageChunk:
			s += ":" + u.Content.Text
		case acp.ToolCallStarted, acp.ToolCallUpdated:
			s += ":" + string(u.ToolCall.Status)
		}
		out = append(out, s)
	}
	return out
}

var fsCaps = acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}

// rawConn speaks NDJSON lines to an agent.
type rawConn struct {
	t *testing.T
	w io.Writer
	r *bufio.Reader
}

func newRaw(t *testing.T, c *end) *rawConn {
	return &rawConn{t: t, w: c.Writer, r: bufio.NewReaderSize(c.Reader, 1<<20)}
}

func (c *rawConn) send(lines ...string) {
	c.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(c.w, l+"\n"); err != nil {
			c.t.Fatal(err)
		}
	}
}

// next reads the next line as a generic message.
func (c *rawConn) next() map[string]any {
	c.t.Helper()
	line, err := c.r.ReadString('\n')
	if err != nil {
		c.t.Fatalf("reading from the agent: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		c.t.Fatalf("the agent sent %q: %v", line, err)
	}
	return m
}

// until reads messages until one with id (a JSON number) arrives and
// returns it, with the messages before it.
func (c *rawConn) until(id float64) (map[string]any, []map[string]any) {
	c.t.Helper()
	var before []map[string]any
	for {
		m := c.next()
		if v, ok := m["id"].(float64); ok && v == id && m["method"] == nil {
			return m, before
		}
		before = append(before, m)
	}
}

func words(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("w")
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}

func acpdemoNew() *acpdemo.Agent { return acpdemo.New("test") }

func itoa(i int) string { return strconv.Itoa(i) }

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
