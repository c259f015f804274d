package interop

import (
	"context"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestMCPGoClient: mcp-go's client (v1.2.1), on its default protocol
// version, over Streamable HTTP and stdio.
func TestMCPGoClient(t *testing.T) {
	for _, tr := range []string{"http", "stdio"} {
		t.Run(tr, func(t *testing.T) {
			var c *client.Client
			var err error
			if tr == "http" {
				c, err = client.NewStreamableHttpClient(serveHTTP(t))
			} else {
				c, err = client.NewStdioMCPClient(jetrpcBin, nil, stdioArgs...)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
			defer cancel()
			var mu sync.Mutex
			var progress []float64
			c.OnNotification(func(n mcp.JSONRPCNotification) {
				if n.Method == "notifications/progress" {
					v, _ := n.Params.AdditionalFields["progress"].(float64)
					mu.Lock()
					progress = append(progress, v)
					mu.Unlock()
				}
			})
			// Start hands notifications to OnNotification, on stdio too:
			// NewStdioMCPClient starts only the transport (mcp-go v1.2.1
			// client.go), so without it no progress would arrive.
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			init, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
				ClientInfo: mcp.Implementation{Name: "interop", Version: "1"}}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("mcp-go over %s: protocol %s, server %s", tr, init.ProtocolVersion, init.ServerInfo.Name)
			if init.ServerInfo.Name != "jetrpc" {
				t.Fatalf("server %+v", init.ServerInfo)
			}
			tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
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
			call := func(name string, args map[string]any, meta *mcp.Meta) string {
				t.Helper()
				r, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args, Meta: meta}})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if r.IsError || len(r.Content) != 1 {
					t.Fatalf("%s: %+v", name, r)
				}
				tc, ok := mcp.AsTextContent(r.Content[0])
				if !ok {
					t.Fatalf("%s: %+v", name, r.Content[0])
				}
				return tc.Text
			}
			if got := call("echo", map[string]any{"text": "héllo"}, nil); got != "héllo" {
				t.Fatalf("echo: %q", got)
			}
			if got := call("add", map[string]any{"a": 2, "b": 3.5}, nil); got != `{"sum":5.5}` {
				t.Fatalf("add: %q", got)
			}
			if got := call("countdown", map[string]any{"n": 5}, &mcp.Meta{ProgressToken: "cd"}); got != "done" {
				t.Fatalf("countdown: %q", got)
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
			if err := c.Ping(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
