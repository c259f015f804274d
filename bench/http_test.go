package bench_test

import (
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/valyala/fasthttp"
)

// httpServers starts, on loopback, a fasthttp server that answers every
// request with a fixed body but for the id it copies (bench.AppendEcho: the
// transport's limit), configured with the same read, write and idle timeouts
// as jetrpc's defaults (each costs a deadline per request), and jetrpc's
// fasthttp server.
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
	srv := netserver.NewHTTP(newEngine(b), nil)
	s.start(b, "jetrpc", srv.Serve, shutdown(srv.Shutdown))
	return s
}

// BenchmarkHTTP measures POST calls per second over loopback with 64
// concurrent keep-alive clients (one call in flight each), the fixed-body
// fasthttp server against jetrpc.
func BenchmarkHTTP(b *testing.B) {
	addrs := httpServers(b)
	for _, server := range []string{"fixed", "jetrpc"} {
		b.Run("server="+server, func(b *testing.B) {
			benchLoad(b, load.Config{Addr: addrs[server], Transport: load.HTTP, Conns: 64, Pipeline: 1,
				Timeout: 10 * time.Second})
		})
	}
}
