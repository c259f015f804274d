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

// tcpServers starts the three servers the TCP benchmarks compare, each on
// its own loopback port: the raw line echo (the transport's limit: it copies
// the id into a fixed response, no JSON work), the encoding/json baseline
// over the same loop, and jetrpc.
func tcpServers(b *testing.B) map[string]string {
	addrs := map[string]string{}
	listen := func() net.Listener {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		return ln
	}
	echo := &bench.LineServer{Handle: bench.EchoLine([]byte("19"))}
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
	modes := []struct {
		name         string
		conns, depth int
	}{{"pipelined", 32, 16}, {"reqresp", 64, 1}}
	for _, m := range modes {
		for _, server := range []string{"echo", "stdlib", "jetrpc"} {
			b.Run("mode="+m.name+"/server="+server, func(b *testing.B) {
				benchLoad(b, load.Config{Addr: addrs[server], Transport: load.TCP, Conns: m.conns, Pipeline: m.depth})
			})
		}
	}
}
