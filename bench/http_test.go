package bench_test

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/netserver"
	"github.com/valyala/fasthttp"
)

// httpServers starts, on loopback, a fasthttp server that answers every
// request with a fixed body (the transport's limit), configured with the
// same read, write and idle timeouts as jetrpc's defaults (each costs a
// deadline per request), and jetrpc's fasthttp server.
func httpServers(b *testing.B) map[string]string {
	addrs := map[string]string{}
	listen := func(name string) net.Listener {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		addrs[name] = ln.Addr().String()
		return ln
	}
	body := []byte(`{"jsonrpc":"2.0","id":1,"result":19}`)
	fixed := &fasthttp.Server{
		Handler: func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("application/json")
			ctx.SetBody(body)
		},
		ReadTimeout:  netserver.DefaultReadTimeout,
		WriteTimeout: netserver.DefaultWriteTimeout,
		IdleTimeout:  netserver.DefaultIdleTimeout,
	}
	go fixed.Serve(listen("fixed"))
	b.Cleanup(func() { fixed.Shutdown() })
	srv := netserver.NewHTTP(newEngine(b), nil)
	go srv.Serve(listen("jetrpc"))
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return addrs
}

// BenchmarkHTTP measures POST calls per second over loopback with 64
// concurrent keep-alive clients, fixed-body fasthttp against jetrpc.
func BenchmarkHTTP(b *testing.B) {
	addrs := httpServers(b)
	req := []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	for _, server := range []string{"fixed", "jetrpc"} {
		b.Run("server="+server, func(b *testing.B) {
			c := &fasthttp.HostClient{Addr: addrs[server], MaxConns: 64}
			defer c.CloseIdleConnections()
			var left atomic.Int64
			left.Store(int64(b.N))
			var wg sync.WaitGroup
			var failed atomic.Value
			b.ResetTimer()
			before := mallocs()
			start := time.Now()
			for i := 0; i < 64; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rq, rs := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
					defer fasthttp.ReleaseRequest(rq)
					defer fasthttp.ReleaseResponse(rs)
					rq.SetRequestURI("http://" + addrs[server] + "/")
					rq.Header.SetMethod("POST")
					rq.Header.SetContentType("application/json")
					rq.SetBody(req)
					for left.Add(-1) >= 0 {
						if err := c.DoTimeout(rq, rs, 10*time.Second); err != nil || rs.StatusCode() != 200 {
							failed.Store(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			if err := failed.Load(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
			b.ReportMetric(float64(mallocs()-before)/float64(b.N), "allocs/call")
		})
	}
}
