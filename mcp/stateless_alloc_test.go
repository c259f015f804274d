//go:build !race

package mcp_test

import (
	"context"
	"testing"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// TestStatelessAllocs: a tool's checks of what a 2026-07-28 request
// declared allocate nothing when they pass: a RequireClientCapabilities
// that finds the capabilities, a Log the request did not ask for. A tool
// doing both costs as many allocations as one doing neither; a session's call (2025-06-18, whose level is error) as well.
func TestStatelessAllocs(t *testing.T) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	ok := func(context.Context) (*mcp.Result, error) { return mcp.TextResult("ok"), nil }
	checks := func(ctx context.Context) (*mcp.Result, error) {
		if err := mcp.RequireClientCapabilities(ctx, "sampling", "roots"); err != nil {
			return nil, err
		}
		if err := mcp.Log(ctx, mcp.LevelInfo, "", nil); err != nil {
			return nil, err
		}
		return mcp.TextResult("ok"), nil
	}
	for _, tool := range []*mcp.Tool{mcp.NewTool("plain", "", noInput(ok)), mcp.NewTool("checks", "", noInput(checks))} {
		require.NoError(t, s.AddTool(tool))
	}
	require.NoError(t, s.EnableLogging())
	h := mcphttp.New(s, nil)
	defer h.Shutdown(context.Background())
	allocs := func(tool string, hd hdr, body string) float64 {
		var req fasthttp.Request
		req.Header.SetMethod("POST")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.SetContentType("application/json")
		for k, v := range hd {
			req.Header.Set(k, v)
		}
		req.SetBodyString(body)
		var ctx fasthttp.RequestCtx
		return testing.AllocsPerRun(200, func() {
			ctx.Init(&req, nil, nil)
			h.ServeFastHTTP(&ctx)
			if ctx.Response.StatusCode() != 200 {
				t.Fatal(tool, ctx.Response.StatusCode(), string(ctx.Response.Body()))
			}
		})
	}
	modern := func(tool string) float64 {
		return allocs(tool, modernHdr("tools/call", tool), modernCall("9", tool, `{"sampling":{},"roots":{"listChanged":true}}`,
			`,"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}`))
	}
	require.Equal(t, modern("plain"), modern("checks"))

	var init fasthttp.Request
	init.Header.SetMethod("POST")
	init.Header.Set("Accept", "application/json, text/event-stream")
	init.SetBodyString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	var ictx fasthttp.RequestCtx
	ictx.Init(&init, nil, nil)
	h.ServeFastHTTP(&ictx)
	sid := string(ictx.Response.Header.Peek("Mcp-Session-Id"))
	require.NotEmpty(t, sid)
	allocs("", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}`)
	session := func(tool string) float64 {
		return allocs(tool, hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`)
	}
	require.Equal(t, session("plain"), session("checks"))
}
