package bench_test

import (
	"context"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/netserver"
)

// tcpServers starts the three servers the TCP benchmarks compare, each on
// its own loopback port: the raw line echo (the transport's limit), the
// encoding/json baseline over the same loop, and jetrpc.
func tcpServers(b *testing.B) map[string]string {
	addrs := map[string]string{}
	listen := func() net.Listener {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		return ln
	}
	echo := &bench.LineServer{Handle: bench.FixedLine([]byte(`{"jsonrpc":"2.0","id":1,"result":19}`))}
	std := &bench.LineServer{Handle: bench.StdlibLine(bench.NewStdlib())}
	for name, s := range map[string]*bench.LineServer{"echo": echo, "stdlib": std} {
		ln := listen()
		addrs[name] = ln.Addr().String()
		go s.Serve(ln)
		b.Cleanup(func() { s.Close() })
	}
	e := newEngine(b)
	srv := netserver.New(e, nil)
	ln := listen()
	addrs["jetrpc"] = ln.Addr().String()
	go srv.Serve(ln)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return addrs
}

// BenchmarkTCP measures calls per second over loopback NDJSON: pipelined
// (32 connections x 16 in flight) and request/response (64 x 1), for the
// echo limit, the stdlib baseline and jetrpc, in one run.
func BenchmarkTCP(b *testing.B) {
	addrs := tcpServers(b)
	req := []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	modes := []struct {
		name         string
		conns, depth int
	}{{"pipelined", 32, 16}, {"reqresp", 64, 1}}
	for _, m := range modes {
		for _, server := range []string{"echo", "stdlib", "jetrpc"} {
			b.Run("mode="+m.name+"/server="+server, func(b *testing.B) {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				b.ResetTimer()
				before := mallocs()
				elapsed, err := bench.Pipelined(ctx, addrs[server], m.conns, m.depth, b.N, req)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
				b.ReportMetric(float64(mallocs()-before)/float64(b.N), "allocs/call")
			})
		}
	}
}

// mallocs is the process's heap allocation count so far. The servers and
// the load generator share the process, so a delta over a run bounds the
// server's allocations per call from above (the generator allocates only
// per connection).
func mallocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}
