package bench_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/netserver"
)

// wsServers starts, on loopback, the encoding/json baseline behind a
// net/http WebSocket endpoint (bench.WSServer) and jetrpc's HTTPServer,
// whose /ws serves WebSocket.
func wsServers(tb testing.TB) servers {
	s := servers{}
	std := &bench.WSServer{Handle: bench.StdlibLine(bench.NewStdlib())}
	s.start(tb, "stdlib", std.Serve, func() { std.Close() })
	srv := netserver.NewHTTP(newEngine(tb), nil)
	s.start(tb, "jetrpc", srv.Serve, shutdown(srv.Shutdown))
	return s
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
