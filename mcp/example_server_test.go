package mcp_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/jetrpc/jetrpc/mcp"
)

// A server is its tools, resources and prompts. A tool is a function of
// a typed input, whose JSON Schema is derived from the type. The
// server's engine answers MCP messages in process: here initialize, then
// a call of the tool.
func Example() {
	s := mcp.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	defer s.Close()
	type in struct {
		Name string `json:"name" description:"who to greet"`
	}
	if err := s.AddTool(mcp.NewTool("greet", "Greets someone.", func(ctx context.Context, in in) (*mcp.Result, error) {
		return mcp.TextResult("hello, " + in.Name), nil
	})); err != nil {
		panic(err)
	}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`,
	} {
		fmt.Println(string(s.Engine().Process(nil, []byte(msg))))
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"greeter","version":"1.0.0"}}}
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello, Ada"}]}}
}

// ServeStdio serves MCP's stdio transport: one JSON-RPC message per line
// on r, the answers on w, until r ends (jetrpc serve --mcp --stdio serves
// os.Stdin and os.Stdout this way).
func ExampleServer_ServeStdio() {
	s := mcp.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	defer s.Close()
	greet := mcp.NewTool("greet", "Greets someone.", func(ctx context.Context, in struct{ Name string }) (*mcp.Result, error) {
		return mcp.TextResult("hello, " + in.Name), nil
	})
	greet.Inline = true // cheap: run on the reading goroutine
	if err := s.AddTool(greet); err != nil {
		panic(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"Name":"Ada"}}}
`)
	if err := s.ServeStdio(in, os.Stdout, nil); err != nil {
		panic(err)
	}
	// initialize runs on a worker and greet on the reader: the two answers
	// may come in either order, matched to their calls by id.

	// Unordered output:
	// {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"greeter","version":"1.0.0"}}}
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello, Ada"}]}}
}
