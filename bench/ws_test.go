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
// jetrpc, and the process's allocations per call.
func BenchmarkWS(b *testing.B) {
	addrs := wsServers(b)
	for _, server := range []string{"stdlib", "jetrpc"} {
		b.Run("server="+server, func(b *testing.B) {
			benchLoad(b, load.Config{Addr: addrs[server], Transport: load.WS, Conns: 32, Pipeline: 16})
		})
	}
}
