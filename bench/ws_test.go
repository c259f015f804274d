package bench_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// wsServers starts, on loopback, the echo limit and the encoding/json
// baseline behind a net/http WebSocket endpoint (bench.WSServer: the echo
// copies the id into a fixed response, bench.EchoLine), and jetrpc's
// HTTPServer, whose /ws serves WebSocket, with the demo methods registered
// each way (jetrpcServer).
func wsServers(tb testing.TB) servers {
	s := servers{}
	echo := &bench.WSServer{Handle: bench.EchoLine([]byte("19"))}
	s.start(tb, "echo", echo.Serve, func() { echo.Close() })
	std := &bench.WSServer{Handle: bench.StdlibLine(bench.NewStdlib())}
	s.start(tb, "stdlib", std.Serve, func() { std.Close() })
	for _, m := range demo.Modes() {
		srv := nethttp.New(newEngineAs(tb, m), nil)
		s.start(tb, jetrpcServer(m), srv.Serve, shutdown(srv.Shutdown))
	}
	return s
}

// BenchmarkWS measures calls per second over loopback WebSocket, 32
// connections x 16 calls in flight, and the process's allocations per
// call: the echo limit and the encoding/json baseline (both on the
// websocket package's one-message-at-a-time loop) against jetrpc with the
// demo methods registered three ways: server=jetrpc (demo.Register: raw
// handlers marked Inline), server=jetrpc-default (the same without Inline)
// and server=jetrpc-typed (dispatch.Typed handlers without Inline).
func BenchmarkWS(b *testing.B) {
	addrs := wsServers(b)
	for _, server := range append([]string{"echo", "stdlib"}, jetrpcServers()...) {
		b.Run("server="+server, func(b *testing.B) {
			benchLoad(b, load.Config{Addr: addrs[server], Transport: load.WS, Conns: 32, Pipeline: 16})
		})
	}
}
