package bench_test

import (
	"crypto/tls"
	"testing"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/netserver"
)

// tcpServers starts the four servers the TCP benchmarks compare, each on
// its own loopback port: the raw line echo (the transport's limit: it copies
// the id into a fixed response, no JSON work), the encoding/json baseline
// over the same loop, jetrpc, and jetrpc with TLS (Options.TLS), whose
// client configuration it returns.
func tcpServers(b *testing.B) (servers, *tls.Config) {
	s := servers{}
	echo := &bench.LineServer{Handle: bench.EchoLine([]byte("19"))}
	s.start(b, "echo", echo.Serve, func() { echo.Close() })
	std := &bench.LineServer{Handle: bench.StdlibLine(bench.NewStdlib())}
	s.start(b, "stdlib", std.Serve, func() { std.Close() })
	srv := netserver.New(newEngine(b), nil)
	s.start(b, "jetrpc", srv.Serve, shutdown(srv.Shutdown))
	return s, startTLS(b, s, "jetrpc-tls")
}

// BenchmarkTCP measures calls per second over loopback NDJSON: pipelined
// (32 connections x 16 in flight) and request/response (64 x 1), for the
// echo limit, the stdlib baseline, jetrpc and jetrpc over TLS, in one run.
// calls/s counts from the first write, after the connections (and their
// TLS handshakes) are up; ns/op includes dialling them.
// BenchmarkTCPHandshake measures what a new connection costs.
func BenchmarkTCP(b *testing.B) {
	addrs, clientTLS := tcpServers(b)
	modes := []struct {
		name         string
		conns, depth int
	}{{"pipelined", 32, 16}, {"reqresp", 64, 1}}
	for _, m := range modes {
		for _, server := range []string{"echo", "stdlib", "jetrpc", "jetrpc-tls"} {
			b.Run("mode="+m.name+"/server="+server, func(b *testing.B) {
				cfg := load.Config{Addr: addrs[server], Transport: load.TCP, Conns: m.conns, Pipeline: m.depth}
				if server == "jetrpc-tls" {
					cfg.TLS = clientTLS
				}
				benchLoad(b, cfg)
			})
		}
	}
}
