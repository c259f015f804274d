package mcp_test

import (
	"context"
	"testing"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/valyala/fasthttp"
)

// BenchmarkModernCall: a 2026-07-28 tools/call through the endpoint's
// handler (no network), on the server jetrpc serve --mcp runs: echo, whose
// schema has no header marks, and test_custom_header with its
// Mcp-Param-Region header (plain and Base64).
func BenchmarkModernCall(b *testing.B) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	if err := mcpdemo.Register(s); err != nil {
		b.Fatal(err)
	}
	if err := mcpdemo.RegisterConformance(s); err != nil {
		b.Fatal(err)
	}
	h := mcphttp.New(s, nil)
	defer h.Shutdown(context.Background())
	for _, c := range []struct{ name, tool, args, region string }{
		{"echo", "echo", `{"text":"hello"}`, ""},
		{"header", "test_custom_header", `{"region":"us-west1"}`, "us-west1"},
		{"header-base64", "test_custom_header", `{"region":"us-west1"}`, "=?base64?dXMtd2VzdDE=?="},
	} {
		b.Run(c.name, func(b *testing.B) {
			var req fasthttp.Request
			req.Header.SetMethod("POST")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.SetContentType("application/json")
			req.Header.Set("Mcp-Protocol-Version", mcp.Modern)
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", c.tool)
			if c.region != "" {
				req.Header.Set("Mcp-Param-Region", c.region)
			}
			body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"` + c.tool + `","arguments":` + c.args + `,` + modernMeta + `}}`
			req.SetBodyString(body)
			var ctx fasthttp.RequestCtx
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				ctx.Init(&req, nil, nil)
				h.ServeFastHTTP(&ctx)
				if ctx.Response.StatusCode() != 200 {
					b.Fatal(ctx.Response.StatusCode(), string(ctx.Response.Body()))
				}
			}
		})
	}
}
