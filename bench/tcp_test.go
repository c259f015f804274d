package bench_test

import (
	"context"
	"crypto/tls"
	"slices"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/netserver"
)

// tcpServers starts the servers the TCP benchmarks compare, each on its own
// loopback port: the raw line echo (the transport's limit: it copies the id
// into a fixed response, no JSON work) through net.Conn and, as echo-raw,
// with the raw system calls netserver uses, the encoding/json baseline over the
// same loop, jetrpc with the demo methods registered each way
// (jetrpcServer), and jetrpc (Inline) with TLS (Options.TLS), whose client
// configuration it returns.
func tcpServers(b *testing.B) (servers, *tls.Config) {
	s := servers{}
	echo := &bench.LineServer{Handle: bench.EchoLine([]byte("19"))}
	s.start(b, "echo", echo.Serve, func() { echo.Close() })
	echoRaw := &bench.LineServer{Handle: bench.EchoLine([]byte("19")), Raw: true}
	s.start(b, "echo-raw", echoRaw.Serve, func() { echoRaw.Close() })
	std := &bench.LineServer{Handle: bench.StdlibLine(bench.NewStdlib())}
	s.start(b, "stdlib", std.Serve, func() { std.Close() })
	for _, m := range demo.Modes() {
		srv := netserver.New(newEngineAs(b, m), nil)
		s.start(b, jetrpcServer(m), srv.Serve, shutdown(srv.Shutdown))
	}
	return s, startTLS(b, s, "jetrpc-tls")
}

// jetrpcServer names the jetrpc server of a benchmark whose demo methods are
// registered the way m says: "jetrpc" for demo.Register's (Inline, the name
// the published figures have always had), "jetrpc-default" and
// "jetrpc-typed" for the registrations a user gets without asking.
func jetrpcServer(m demo.Mode) string {
	if m == demo.Inline {
		return "jetrpc"
	}
	return "jetrpc-" + m.String()
}

// jetrpcServers are the names of jetrpcServer for every mode.
func jetrpcServers() []string {
	var names []string
	for _, m := range demo.Modes() {
		names = append(names, jetrpcServer(m))
	}
	return names
}

// BenchmarkTCP measures calls per second over loopback NDJSON: pipelined
// (32 connections x 16 in flight) and request/response (64 x 1), in one
// run, for the echo limit (through net.Conn, and echo-raw with netserver's
// raw system calls), the stdlib baseline, jetrpc with the demo
// methods registered three ways (server=jetrpc: demo.Register, raw handlers
// marked Inline; server=jetrpc-default: the same handlers without Inline;
// server=jetrpc-typed: dispatch.Typed handlers without Inline), and jetrpc
// (Inline) over TLS.
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
		for _, server := range slices.Concat([]string{"echo", "echo-raw", "stdlib"}, jetrpcServers(), []string{"jetrpc-tls"}) {
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

// BenchmarkTCPNotify measures messages per second over loopback NDJSON,
// pipelined (32 connections x 16 calls in flight), when half of them are
// notifications (bench.Cases' notification, each followed by a small
// call), with the demo methods registered three ways: Inline (server=jetrpc),
// default (server=jetrpc-default) and Typed (server=jetrpc-typed). The
// notifications of a default method keep their order on the connection's
// queue until the method has proved quick, and then run on the reader.
func BenchmarkTCPNotify(b *testing.B) {
	for _, m := range demo.Modes() {
		b.Run("server="+jetrpcServer(m), func(b *testing.B) {
			s := servers{}
			srv := netserver.New(newEngineAs(b, m), nil)
			s.start(b, "jetrpc", srv.Serve, shutdown(srv.Shutdown))
			reqs, err := load.Mix("notification,small")
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cfg := load.Config{Addr: s["jetrpc"], Transport: load.TCP, Conns: 32, Pipeline: 16, Requests: reqs, Count: 4096}
			if _, err := load.Run(ctx, cfg); err != nil { // warm: the default methods learn here
				b.Fatal(err)
			}
			cfg.Count = int64(b.N)
			b.ResetTimer()
			res, err := load.Run(ctx, cfg)
			if err != nil || res.Failed() > 0 || res.Done() != int64(b.N) {
				b.Fatalf("run: %v, %+v", err, res.Counts)
			}
			b.ReportMetric(res.Rate(), "msgs/s")
		})
	}
}
