//go:build !race

package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// TestParamHeaderAllocs: the header check allocates nothing for a tool
// without marks (a 2026-07-28 echo costs as many allocations on a server
// with marked tools as on one without), nor for a marked tool whose
// headers match.
func TestParamHeaderAllocs(t *testing.T) {
	plain := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	require.NoError(t, mcpdemo.Register(plain))
	hp := mcphttp.New(plain, nil)
	defer hp.Shutdown(context.Background())
	hm := paramServer(t)
	allocs := func(h *mcphttp.Handler, tool, args string, hd ...string) float64 {
		var req fasthttp.Request
		req.Header.SetMethod("POST")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.SetContentType("application/json")
		req.Header.Set("Mcp-Protocol-Version", mcp.Modern)
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", tool)
		for i := 0; i+1 < len(hd); i += 2 {
			req.Header.Add(hd[i], hd[i+1])
		}
		req.SetBodyString(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,` + modernMeta + `}}`)
		var ctx fasthttp.RequestCtx
		return testing.AllocsPerRun(200, func() {
			ctx.Init(&req, nil, nil)
			h.ServeFastHTTP(&ctx)
			if ctx.Response.StatusCode() != 200 {
				t.Fatal(string(ctx.Response.Body()))
			}
		})
	}
	base := allocs(hp, "echo", `{"text":"hello"}`)
	require.Equal(t, base, allocs(hm, "echo", `{"text":"hello"}`, "Mcp-Param-Region", "x"))
	// The same tools with their marks and without: the difference is the
	// check of their headers.
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	route := func(_ context.Context, in RouteIn) (*mcp.Result, error) { return mcp.TextResult(in.Region), nil }
	unmarked := mcp.NewTool("route_unmarked", "", route)
	unmarked.InputSchema = json.RawMessage(`{"type":"object"}`)
	count := mcp.NewTool("count", "", echoArgs)
	count.InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}`)
	require.NoError(t, errors.Join(s.AddTool(mcp.NewTool("route", "", route)), s.AddTool(unmarked),
		s.AddTool(count), s.AddTool(mcp.NewTool("count_unmarked", "", echoArgs))))
	h := mcphttp.New(s, nil)
	defer h.Shutdown(context.Background())
	const args = `{"region":"us-west1","target":{"zone":"z1"},"shard":7,"fast":true}`
	want := allocs(h, "route_unmarked", args)
	require.Equal(t, want, allocs(h, "route", args, "Mcp-Param-Region", "us-west1", "Mcp-Param-Zone", "z1",
		"Mcp-Param-Shard", "7", "Mcp-Param-Fast", "true"), "plain headers")
	require.Equal(t, want, allocs(h, "route", args, "Mcp-Param-Region", "=?base64?dXMtd2VzdDE=?=", "Mcp-Param-Zone", "z1",
		"Mcp-Param-Shard", "7.0", "Mcp-Param-Fast", "true"), "Base64, a number written otherwise")
	require.Equal(t, allocs(h, "count_unmarked", `{"n":42}`), allocs(h, "count", `{"n":42}`, "Mcp-Param-N", "42"), "an integer")
	t.Logf("allocations per call: echo %v, route %v", base, want)
}
