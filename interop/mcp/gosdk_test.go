package interop

import (
	"context"
	"os/exec"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDKClient: the official Go SDK's client (v1.8.0), on its default
// protocol version, over Streamable HTTP and stdio: connect, list the
// tools, call each, progress in order, ping, close.
func TestGoSDKClient(t *testing.T) {
	for _, tr := range []string{"http", "stdio"} {
		t.Run(tr, func(t *testing.T) {
			var transport mcp.Transport
			if tr == "http" {
				transport = &mcp.StreamableClientTransport{Endpoint: serveHTTP(t), MaxRetries: -1}
			} else {
				transport = &mcp.CommandTransport{Command: exec.Command(jetrpcBin, stdioArgs...)}
			}
			ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
			defer cancel()
			var mu sync.Mutex
			var progress []float64
			c := mcp.NewClient(&mcp.Implementation{Name: "interop", Version: "1"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					progress = append(progress, r.Params.Progress)
					mu.Unlock()
				}})
			cs, err := c.Connect(ctx, transport, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			init := cs.InitializeResult()
			t.Logf("go-sdk over %s: protocol %s, server %s", tr, init.ProtocolVersion, init.ServerInfo.Name)
			if init.ServerInfo.Name != "jetrpc" {
				t.Fatalf("server %+v", init.ServerInfo)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, tool := range tools.Tools {
				names[tool.Name] = true
			}
			for _, n := range []string{"echo", "add", "countdown"} {
				if !names[n] {
					t.Fatalf("no tool %s in %v", n, names)
				}
			}
			text := func(r *mcp.CallToolResult) string {
				t.Helper()
				if r.IsError || len(r.Content) != 1 {
					t.Fatalf("result %+v", r)
				}
				return r.Content[0].(*mcp.TextContent).Text
			}
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "héllo"}})
			if err != nil || text(r) != "héllo" {
				t.Fatalf("echo: %v %+v", err, r)
			}
			r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3.5}})
			if err != nil || text(r) != `{"sum":5.5}` {
				t.Fatalf("add: %v %+v", err, r)
			}
			if sc, _ := r.StructuredContent.(map[string]any); sc["sum"] != 5.5 {
				t.Fatalf("add's structuredContent: %#v", r.StructuredContent)
			}
			p := &mcp.CallToolParams{Name: "countdown", Arguments: map[string]any{"n": 5}}
			p.SetProgressToken("cd")
			r, err = cs.CallTool(ctx, p)
			if err != nil || text(r) != "done" {
				t.Fatalf("countdown: %v %+v", err, r)
			}
			got := waitProgress(&mu, &progress, 5) // the client may run its handlers after the result returns
			if len(got) != 5 {
				t.Fatalf("progress %v", got)
			}
			for i, v := range got {
				if v != float64(i+1) {
					t.Fatalf("progress out of order: %v", got)
				}
			}
			// go-sdk v1.8.0 pings on 2026-07-28, a revision that removed ping
			// (2026-07-28 changelog: "Remove ping, logging/setLevel, and
			// notifications/roots/list_changed"), and sends it over HTTP with the
			// MCP-Protocol-Version header but without the _meta every request of
			// that revision carries ("Every request now carries its protocol
			// version and client capabilities in _meta"). That is the client's
			// fault: jetrpc answers 400 with -32602 (_meta missing; with _meta it
			// would be 404 with -32601, "If the server does not implement the
			// requested RPC method, it MUST respond with 404 Not Found"). On stdio,
			// where a request without _meta is served as the initialize-based
			// revisions serve it, the ping is answered.
			err = cs.Ping(ctx, nil)
			switch {
			case tr == "stdio" && err != nil:
				t.Fatal(err)
			case tr == "http" && err == nil:
				t.Fatal("ping on 2026-07-28 over http answered: the revision removed it")
			case tr == "http":
				t.Logf("ping over http, refused as the revision asks: %v", err)
			}
		})
	}
}
