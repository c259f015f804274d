//go:build !race

package mcp_test

import (
	"context"
	"testing"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/oauth"
	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// TestHTTPAllocs: a session's cheap request through mcphttp.Handler
// allocates nothing of the endpoint's own (the one allocation counted is
// fasthttp's RequestCtx.Init, which a real connection makes once). It
// guards the seam between mcp and mcphttp: a pointer into the request's
// parse passed through an interface escapes, one allocation per request.
func TestHTTPAllocs(t *testing.T) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	require.NoError(t, mcpdemo.Register(s))
	h := mcphttp.New(s, nil)
	defer h.Shutdown(context.Background())
	sid := string(direct(t, h, "", initBody).Header.Peek("Mcp-Session-Id"))
	require.NotEmpty(t, sid)
	f := func(body string) {
		t.Helper()
		var req fasthttp.Request
		req.Header.SetMethod("POST")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.SetContentType("application/json")
		req.Header.Set("Mcp-Session-Id", sid)
		req.SetBodyString(body)
		var ctx fasthttp.RequestCtx
		n := testing.AllocsPerRun(200, func() {
			ctx.Init(&req, nil, nil)
			h.ServeFastHTTP(&ctx)
			if ctx.Response.StatusCode() != 200 {
				t.Fatal(ctx.Response.StatusCode(), string(ctx.Response.Body()))
			}
		})
		require.LessOrEqual(t, n, 1.0, body)
	}
	f(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	f(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
}

// TestHTTPAccessAllocs: with Options.Access and mcphttp.Options.Identity
// (an OAuth endpoint: jetrpc serve --mcp-scope), an allowed call and a
// list the caller may see whole allocate nothing more than without them.
func TestHTTPAccessAllocs(t *testing.T) {
	rules, err := oauth.ParseScopeRules([]string{"*=mcp"})
	require.NoError(t, err)
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, &mcp.Options{Access: rules})
	require.NoError(t, mcpdemo.Register(s))
	alice := &auth.Identity{Name: "alice", Scheme: oauth.Scheme, Attrs: &oauth.Token{Subject: "alice", Scopes: []string{"mcp"}}}
	h := mcphttp.New(s, &mcphttp.Options{Identity: func(*fasthttp.RequestCtx) *auth.Identity { return alice }})
	defer h.Shutdown(context.Background())
	sid := string(direct(t, h, "", initBody).Header.Peek("Mcp-Session-Id"))
	require.NotEmpty(t, sid)
	f := func(body string) {
		t.Helper()
		var req fasthttp.Request
		req.Header.SetMethod("POST")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.SetContentType("application/json")
		req.Header.Set("Mcp-Session-Id", sid)
		req.SetBodyString(body)
		var ctx fasthttp.RequestCtx
		n := testing.AllocsPerRun(200, func() {
			ctx.Init(&req, nil, nil)
			h.ServeFastHTTP(&ctx)
			if ctx.Response.StatusCode() != 200 {
				t.Fatal(ctx.Response.StatusCode(), string(ctx.Response.Body()))
			}
		})
		require.LessOrEqual(t, n, 1.0, body)
	}
	f(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
	f(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`)
}
