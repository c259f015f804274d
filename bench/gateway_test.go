package bench_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/gateway"
	"github.com/jetrpc/jetrpc/netserver"
)

// BenchmarkGateway measures the latency a gateway adds: one call at a time
// (ns/op is a round trip), over loopback TCP, from a client to the
// upstream (direct: jetrpc with the demo methods) and to a gateway in
// front of it (proxy: package gateway over netserver, its upstream a TCP
// client pool, with jetrpc proxy's default 30s timeout). All three ends
// run in this process. bench/gateway.sh go BASE compares revisions.
func BenchmarkGateway(b *testing.B) {
	up := dispatch.New(nil)
	b.Cleanup(up.Close)
	if err := demo.Register(up); err != nil {
		b.Fatal(err)
	}
	upAddr := serveBench(b, up)

	uc, err := client.Dial(context.Background(), "tcp", upAddr, nil)
	if err != nil {
		b.Fatal(err)
	}
	pool, err := client.NewPool([]*client.Client{uc}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pool.Close() })
	gw, err := gateway.New(&gateway.Options{Default: &gateway.Group{Name: "default", Pool: pool}, Timeout: 30 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	ge := dispatch.New(&dispatch.Options{Forward: gw})
	b.Cleanup(ge.Close)
	gwAddr := serveBench(b, ge)

	for _, c := range []struct{ name, addr string }{{"direct", upAddr}, {"proxy", gwAddr}} {
		b.Run(c.name, func(b *testing.B) {
			cl, err := client.Dial(context.Background(), "tcp", c.addr, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Close()
			ctx := context.Background()
			params := []byte(`[42,23]`)
			dst := make([]byte, 0, 64)
			for range 1000 { // warm: connections, pools, buffers
				if dst, err = cl.CallRaw(ctx, dst[:0], "subtract", params); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if dst, err = cl.CallRaw(ctx, dst[:0], "subtract", params); err != nil || string(dst) != "19" {
					b.Fatalf("%s %v", dst, err)
				}
			}
		})
	}
}

// serveBench serves e over loopback TCP until the benchmark ends.
func serveBench(b *testing.B, e *dispatch.Engine) string {
	srv := netserver.New(e, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ln)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return ln.Addr().String()
}
