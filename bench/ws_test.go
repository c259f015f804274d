package bench_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/netserver"
)

// wsServers starts, on loopback, the encoding/json baseline behind a
// net/http WebSocket endpoint (bench.WSServer) and jetrpc's HTTPServer,
// whose /ws serves WebSocket.
func wsServers(b testing.TB) map[string]string {
	addrs := map[string]string{}
	listen := func(name string) net.Listener {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		addrs[name] = ln.Addr().String()
		return ln
	}
	std := &bench.WSServer{Handle: bench.StdlibLine(bench.NewStdlib())}
	go std.Serve(listen("stdlib"))
	b.Cleanup(func() { std.Close() })
	srv := netserver.NewHTTP(newEngine(b), nil)
	go srv.Serve(listen("jetrpc"))
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return addrs
}

// BenchmarkWS measures calls per second over loopback WebSocket, 32
// connections x 16 calls in flight, the encoding/json baseline against
// jetrpc, with the load generator of bench/load (no allocation per call),
// and the process's allocations per call.
func BenchmarkWS(b *testing.B) {
	addrs := wsServers(b)
	reqs, err := load.Mix("small")
	if err != nil {
		b.Fatal(err)
	}
	for _, server := range []string{"stdlib", "jetrpc"} {
		b.Run("server="+server, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			b.ResetTimer()
			before := mallocs()
			res, err := load.Run(ctx, load.Config{Addr: addrs[server], Transport: load.WS,
				Conns: 32, Pipeline: 16, Count: int64(b.N), Requests: reqs})
			if err != nil {
				b.Fatal(err)
			}
			if res.Failed() > 0 {
				b.Fatalf("%d calls failed: %+v", res.Failed(), res.Counts)
			}
			b.ReportMetric(res.Rate(), "calls/s")
			b.ReportMetric(float64(mallocs()-before)/float64(b.N), "allocs/call")
		})
	}
}
