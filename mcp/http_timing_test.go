package mcp_test

import (
	"context"
	"net"
	"testing"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/valyala/fasthttp"
)

// BenchmarkHTTPHandler: one request (mcphttp.Handler) through the endpoint's handler, no
// network (what the endpoint itself costs; the server-level comparison
// with other SDKs is bench/'s).
func BenchmarkHTTPHandler(b *testing.B) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	if err := mcpdemo.Register(s); err != nil {
		b.Fatal(err)
	}
	h := mcphttp.New(s, nil)
	defer h.Shutdown(context.Background())
	sid := string(direct(nil, h, "", initBody).Header.Peek("Mcp-Session-Id"))
	for _, c := range []struct{ name, body string }{
		{"echo", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`},
		{"add", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`},
		{"ping", `{"jsonrpc":"2.0","id":5,"method":"ping"}`},
		{"countdown0", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"countdown","arguments":{"n":0}}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			var req fasthttp.Request
			req.Header.SetMethod("POST")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.SetContentType("application/json")
			req.Header.Set("Mcp-Session-Id", sid)
			req.SetBodyString(c.body)
			var ctx fasthttp.RequestCtx
			b.ReportAllocs()
			b.SetBytes(int64(len(c.body)))
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

// BenchmarkHTTPLoopback: tools/call echo over loopback HTTP from 64
// concurrent clients (fasthttp's client, keep-alive), in one session.
func BenchmarkHTTPLoopback(b *testing.B) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	if err := mcpdemo.Register(s); err != nil {
		b.Fatal(err)
	}
	h := mcphttp.New(s, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &fasthttp.Server{Handler: h.ServeFastHTTP}
	go srv.Serve(ln)
	defer func() { h.Shutdown(context.Background()); srv.Shutdown() }()
	url := "http://" + ln.Addr().String() + "/mcp"
	hc := &fasthttp.HostClient{Addr: ln.Addr().String(), MaxConns: 64}
	post := func(sid, body string, res *fasthttp.Response) {
		req := fasthttp.AcquireRequest()
		defer fasthttp.ReleaseRequest(req)
		req.SetRequestURI(url)
		req.Header.SetMethod("POST")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.SetContentType("application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		req.SetBodyString(body)
		if err := hc.Do(req, res); err != nil || res.StatusCode() != 200 {
			b.Fatal(err, res.StatusCode())
		}
	}
	var res fasthttp.Response
	post("", initBody, &res)
	sid := string(res.Header.Peek("Mcp-Session-Id"))
	const echo = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`
	b.SetParallelism(32) // 64 goroutines on 2 cores
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var res fasthttp.Response
		for pb.Next() {
			post(sid, echo, &res)
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
