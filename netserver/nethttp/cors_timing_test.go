package nethttp_test

import (
	"log/slog"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/valyala/fasthttp"
)

// BenchmarkCORS is HTTPServer.Handler for one small call (subtract) without
// the browser layer's work (no Host policy, no Origin header: one header
// lookup), with the Host check, with the Host check and an allowed Origin
// (the Origin policy and three CORS headers), and a preflight.
func BenchmarkCORS(b *testing.B) {
	e := dispatch.New(&dispatch.Options{Logger: slog.New(slog.DiscardHandler)})
	defer e.Close()
	if err := demo.Register(e); err != nil {
		b.Fatal(err)
	}
	origins, _ := guard.ParseOriginPolicy("http://a.example,http://app.example:8080")
	hosts, _ := guard.ParseHostPolicy("rpc.example")
	plain := nethttp.New(e, nil)
	checked := nethttp.New(e, &netserver.Options{Guard: guard.New(&guard.Options{Origins: origins, Hosts: hosts})})
	run := func(name string, s *nethttp.HTTPServer, method, origin string, status int) {
		b.Run(name, func(b *testing.B) {
			var ctx fasthttp.RequestCtx
			ctx.Request.Header.SetMethod(method)
			ctx.Request.Header.SetHost("rpc.example:8545")
			if origin != "" {
				ctx.Request.Header.Set("Origin", origin)
			}
			if method == fasthttp.MethodOptions {
				ctx.Request.Header.Set("Access-Control-Request-Method", "POST")
			} else {
				ctx.Request.SetBodyString(httpSubtract)
			}
			b.ReportAllocs()
			for b.Loop() {
				s.Handler(&ctx)
				if ctx.Response.StatusCode() != status {
					b.Fatalf("status %d", ctx.Response.StatusCode())
				}
				ctx.Response.Reset()
			}
		})
	}
	run("off", plain, fasthttp.MethodPost, "", 200)
	run("host", checked, fasthttp.MethodPost, "", 200)
	run("host+origin", checked, fasthttp.MethodPost, "http://app.example:8080", 200)
	run("preflight", checked, fasthttp.MethodOptions, "http://app.example:8080", 204)
}
