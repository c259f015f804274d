package mcp_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/valyala/fasthttp"
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
	greet.Inline = true // cheap: answered in order, on the reading goroutine
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
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"greeter","version":"1.0.0"}}}
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello, Ada"}]}}
}

// NewHTTP makes the Streamable HTTP endpoint; mount its ServeFastHTTP on
// a path (netserver.Options.Routes, as jetrpc serve --mcp does at /mcp).
// Here one initialize is served in process: it opens a session, whose id
// every later request carries in Mcp-Session-Id.
func ExampleNewHTTP() {
	s := mcp.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	defer s.Close()
	h := mcp.NewHTTP(s, nil)
	defer h.Shutdown(context.Background())

	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.Header.Set("Accept", "application/json, text/event-stream")
	ctx.Request.Header.SetContentType("application/json")
	ctx.Request.SetBodyString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	h.ServeFastHTTP(&ctx)
	fmt.Println(ctx.Response.StatusCode(), string(ctx.Response.Header.ContentType()))
	fmt.Println(string(ctx.Response.Body()))
	fmt.Println(len(ctx.Response.Header.Peek("Mcp-Session-Id")) > 0, h.Sessions())
	// Output:
	// 200 application/json
	// {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"greeter","version":"1.0.0"}}}
	// true 1
}
