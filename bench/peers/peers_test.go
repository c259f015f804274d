package peers_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/bench/peers"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
)

// server is one engine under load on loopback.
type server struct {
	peers.Peer
	addr string
}

func listen(tb testing.TB) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return ln
}

// servers starts jetrpc, the encoding/json baseline and every peer, each on
// its own loopback port, NDJSON.
func servers(tb testing.TB) []server {
	same := func(m string) string { return m }
	e := dispatch.New(nil)
	if err := demo.Register(e); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	all := []peers.Peer{
		{Name: "jetrpc", Method: same, Named: true, Batch: true, Serve: func(ln net.Listener) func() {
			srv := netserver.New(e, nil)
			go srv.Serve(ln)
			return func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				srv.Shutdown(ctx)
			}
		}},
		{Name: "baseline", Method: same, Named: true, Batch: true, Serve: func(ln net.Listener) func() {
			srv := &bench.LineServer{Handle: bench.StdlibLine(bench.NewStdlib())}
			go srv.Serve(ln)
			return func() { srv.Close() }
		}},
	}
	all = append(all, peers.Peers()...)
	var out []server
	for _, p := range all {
		ln := listen(tb)
		tb.Cleanup(p.Serve(ln))
		out = append(out, server{p, ln.Addr().String()})
	}
	return out
}

// requests is the case c as s serves it, or nil when s cannot: geth takes
// params only by position (named and large have objects), sourcegraph no
// batches.
func requests(tb testing.TB, s server, c bench.Case) []load.Request {
	if ((c.Name == "named" || c.Name == "large") && !s.Named) || (c.Name == "batch10" && !s.Batch) {
		return nil
	}
	r, err := load.NewRequest(c.Name, []byte(s.Rename(string(c.Msg))))
	if err != nil {
		tb.Fatal(err)
	}
	return []load.Request{r}
}

var cases = []string{"small", "named", "large", "batch10"}

func runLoad(tb testing.TB, addr string, reqs []load.Request, count int64, conns, depth int) *load.Result {
	res, err := load.Run(context.Background(), load.Config{Addr: addr, Conns: conns, Pipeline: depth, Count: count,
		Requests: reqs, Timeout: 10 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	if res.Failed() != 0 || res.OK != count {
		tb.Fatalf("counts %+v", res.Counts)
	}
	return res
}

// TestPeersAnswer: every server answers every case it supports correctly.
func TestPeersAnswer(t *testing.T) {
	for _, s := range servers(t) {
		for _, c := range bench.Cases() {
			if c.Name == "notification" {
				continue
			}
			if reqs := requests(t, s, c); reqs != nil {
				t.Run(c.Name+"/"+s.Name, func(t *testing.T) { runLoad(t, s.addr, reqs, 200, 4, 4) })
			}
		}
	}
}

// BenchmarkPeersTCP measures calls per second over loopback NDJSON, 32
// connections x 16 calls in flight (pipelined) and 64 x 1 (reqresp), for
// jetrpc, the encoding/json baseline and each peer, in one run.
func BenchmarkPeersTCP(b *testing.B) {
	all := servers(b)
	modes := []struct {
		name         string
		conns, depth int
	}{{"pipelined", 32, 16}, {"reqresp", 64, 1}}
	for _, m := range modes {
		for _, name := range cases {
			var c bench.Case
			for _, x := range bench.Cases() {
				if x.Name == name {
					c = x
				}
			}
			for _, s := range all {
				reqs := requests(b, s, c)
				if reqs == nil {
					continue
				}
				b.Run("mode="+m.name+"/case="+name+"/server="+s.Name, func(b *testing.B) {
					res := runLoad(b, s.addr, reqs, int64(b.N), m.conns, m.depth)
					b.ReportMetric(res.Rate(), "calls/s")
					b.ReportMetric(float64(res.Latency.Quantile(0.99).Microseconds()), "p99-µs")
				})
			}
		}
	}
}
