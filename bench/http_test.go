package bench_test

import (
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/valyala/fasthttp"
)

// httpServers starts, on loopback, a fasthttp server that answers every
// request with a fixed body but for the id it copies (bench.AppendEcho: the
// transport's limit), configured with the same read, write and idle timeouts
// as jetrpc's defaults (each costs a deadline per request), and jetrpc's
// fasthttp server with the demo methods registered each way (jetrpcServer).
func httpServers(b *testing.B) servers {
	s := servers{}
	fixed := &fasthttp.Server{
		Handler: func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("application/json")
			// Append to the response's own body buffer: no copy, no allocation.
			body := ctx.Response.SwapBody(nil)
			ctx.Response.SwapBody(bench.AppendEcho(body[:0], ctx.PostBody(), []byte("19")))
		},
		ReadTimeout:  netserver.DefaultReadTimeout,
		WriteTimeout: netserver.DefaultWriteTimeout,
		IdleTimeout:  netserver.DefaultIdleTimeout,
	}
	s.start(b, "fixed", fixed.Serve, func() { fixed.Shutdown() })
	for _, m := range demo.Modes() {
		srv := nethttp.New(newEngineAs(b, m), nil)
		s.start(b, jetrpcServer(m), srv.Serve, shutdown(srv.Shutdown))
	}
	return s
}

// BenchmarkHTTP measures POST calls per second over loopback with 64
// concurrent keep-alive clients (one call in flight each), the fixed-body
// fasthttp server against jetrpc with the demo methods registered three
// ways: server=jetrpc (demo.Register: raw handlers marked Inline),
// server=jetrpc-default (the same without Inline) and server=jetrpc-typed
// (dispatch.Typed handlers without Inline).
func BenchmarkHTTP(b *testing.B) {
	addrs := httpServers(b)
	for _, server := range append([]string{"fixed"}, jetrpcServers()...) {
		b.Run("server="+server, func(b *testing.B) {
			benchLoad(b, load.Config{Addr: addrs[server], Transport: load.HTTP, Conns: 64, Pipeline: 1,
				Timeout: 10 * time.Second})
		})
	}
}
