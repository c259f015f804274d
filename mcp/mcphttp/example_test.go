package mcphttp_test

import (
	"context"
	"fmt"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/valyala/fasthttp"
)

// New makes the Streamable HTTP endpoint of an mcp.Server; mount its ServeFastHTTP on
// a path (netserver.Options.Routes, as jetrpc serve --mcp does at /mcp).
// Here one initialize is served in process: it opens a session, whose id
// every later request carries in Mcp-Session-Id.
func ExampleNew() {
	s := mcp.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	defer s.Close()
	h := mcphttp.New(s, nil)
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
