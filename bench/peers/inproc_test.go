package peers_test

import (
	"bytes"
	"context"
	"encoding/json"

	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/bench/peers"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// locals is every engine with an in-process path: jetrpc (Engine.Process),
// the baseline (bench.Stdlib.Process) and the peers.
func locals(tb testing.TB) []peers.Peer {
	same := func(m string) string { return m }
	e := dispatch.New(nil)
	if err := demo.Register(e); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	te := dispatch.New(nil) // the same methods as typed handlers (bench.RegisterTyped)
	if err := bench.RegisterTyped(te); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(te.Close)
	std := bench.NewStdlib()
	sync := func(do func(msg []byte) []byte) func() *peers.Local {
		return func() *peers.Local {
			return &peers.Local{Do: func(msg []byte, _ bool) ([]byte, error) { return do(msg), nil },
				Flush: func() {}, Close: func() {}}
		}
	}
	dst := make([]byte, 0, 4096)
	all := []peers.Peer{
		{Name: "jetrpc", Method: same, Named: true, Batch: true,
			Local: sync(func(msg []byte) []byte { dst = e.Process(dst[:0], msg); return dst })},
		{Name: "jetrpc-typed", Method: same, Named: true, Batch: true,
			Local: sync(func(msg []byte) []byte { dst = te.Process(dst[:0], msg); return dst })},
		{Name: "baseline", Method: same, Named: true, Batch: true, Local: sync(std.Process)},
	}
	return append(all, peers.Peers()...)
}

// message is case c as p serves it, or nil when p cannot serve it.
func message(p peers.Peer, c bench.Case) []byte {
	if ((c.Name == "named" || c.Name == "large") && !p.Named) || (c.Name == "batch10" && !p.Batch) {
		return nil
	}
	return []byte(p.Rename(string(c.Msg)))
}

// checkAnswer fails unless resp is the right answer to case c.
func checkAnswer(tb testing.TB, c bench.Case, resp []byte) {
	tb.Helper()
	type answer struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	var want any
	switch c.Name {
	case "notification":
		if len(bytes.TrimSpace(resp)) != 0 {
			tb.Fatalf("notification answered: %s", resp)
		}
		return
	case "large":
		var req struct{ Params any }
		json.Unmarshal(c.Msg, &req)
		want = req.Params
	default:
		want = 19.0
	}
	var got []answer
	if c.Name == "batch10" {
		if err := json.Unmarshal(resp, &got); err != nil || len(got) != 10 {
			tb.Fatalf("batch answer %s: %v", resp, err)
		}
	} else {
		got = make([]answer, 1)
		if err := json.Unmarshal(resp, &got[0]); err != nil {
			tb.Fatalf("answer %s: %v", resp, err)
		}
	}
	for _, a := range got {
		var result any
		if a.JSONRPC != "2.0" || a.Error != nil || json.Unmarshal(a.Result, &result) != nil || !reflect.DeepEqual(result, want) {
			tb.Fatalf("%s: wrong answer %s", c.Name, resp)
		}
	}
}

// TestInProcess: every engine answers every case it serves in process.
func TestInProcess(t *testing.T) {
	for _, p := range locals(t) {
		for _, c := range bench.Cases() {
			msg := message(p, c)
			if msg == nil {
				continue
			}
			t.Run(c.Name+"/"+p.Name, func(t *testing.T) {
				l := p.Local()
				defer l.Close()
				for range 3 {
					resp, err := l.Do(msg, c.Name != "notification")
					if err != nil {
						t.Fatal(err)
					}
					checkAnswer(t, c, resp)
				}
				l.Flush()
			})
		}
	}
}

// BenchmarkInProcess: one message in, its answer out, through each engine's
// in-process path (see peers.Peer.Local), one call at a time. Notifications
// are sent back to back and the benchmark waits until all are handled.
// Allocations are the whole process's, the peers' server goroutines included.
func BenchmarkInProcess(b *testing.B) {
	all := locals(b)
	for _, c := range bench.Cases() {
		answer := c.Name != "notification"
		for _, p := range all {
			msg := message(p, c)
			if msg == nil {
				continue
			}
			b.Run("case="+c.Name+"/engine="+p.Name, func(b *testing.B) {
				l := p.Local()
				defer l.Close()
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := l.Do(msg, answer); err != nil {
						b.Fatal(err)
					}
				}
				l.Flush()
			})
		}
	}
}

// httpServer is one engine served over HTTP on loopback.
type httpServer struct {
	peers.Peer
	addr string
}

// httpServers starts jetrpc on fasthttp (nethttp.New, its default
// timeouts), jetrpc on net/http (nethttp.Handler), the baseline on
// net/http, and the peers that have an HTTP handler, on net/http; the
// net/http servers use http.Server's defaults (no timeouts).
func httpServers(tb testing.TB) []httpServer {
	same := func(m string) string { return m }
	e := dispatch.New(nil)
	if err := demo.Register(e); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	te := dispatch.New(nil) // the same methods as typed handlers (bench.RegisterTyped)
	if err := bench.RegisterTyped(te); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(te.Close)
	std := bench.NewStdlib()
	baseline := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body bytes.Buffer
		if _, err := body.ReadFrom(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := std.Process(body.Bytes())
		if resp == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(resp)
	})
	var out []httpServer
	start := func(p peers.Peer, h http.Handler) {
		ln := listen(tb)
		srv := &http.Server{Handler: h}
		go srv.Serve(ln)
		tb.Cleanup(func() { srv.Close() })
		out = append(out, httpServer{p, ln.Addr().String()})
	}
	jet := peers.Peer{Name: "jetrpc", Method: same, Named: true, Batch: true}
	{
		ln := listen(tb)
		srv := nethttp.New(e, nil)
		go srv.Serve(ln)
		tb.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			srv.Shutdown(ctx)
		})
		out = append(out, httpServer{jet, ln.Addr().String()})
	}
	jetStd := jet
	jetStd.Name = "jetrpc-nethttp"
	start(jetStd, nethttp.Handler(e, nil))
	start(peers.Peer{Name: "baseline", Method: same, Named: true, Batch: true}, baseline)
	for _, p := range peers.Peers() {
		if p.HTTP != nil {
			h, stop := p.HTTP()
			tb.Cleanup(stop)
			start(p, h)
		}
	}
	return out
}

func runHTTP(tb testing.TB, addr string, c bench.Case, msg []byte, count int64) *load.Result {
	r, err := load.NewRequest(c.Name, msg)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := load.Run(context.Background(), load.Config{Addr: addr, Transport: load.HTTP, Conns: 64, Pipeline: 1,
		Count: count, Requests: []load.Request{r}, Timeout: 10 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	if res.Failed() != 0 || res.Done() != count {
		tb.Fatalf("counts %+v", res.Counts)
	}
	return res
}

// TestHTTP: every HTTP server answers every case it serves.
func TestHTTP(t *testing.T) {
	for _, s := range httpServers(t) {
		for _, c := range bench.Cases() {
			if msg := message(s.Peer, c); msg != nil {
				t.Run(c.Name+"/"+s.Name, func(t *testing.T) { runHTTP(t, s.addr, c, msg, 200) })
			}
		}
	}
}

// BenchmarkPeersHTTP: POST calls per second over loopback, 64 keep-alive
// clients one call at a time (bench/load's fasthttp HostClient), each case
// through each HTTP server.
func BenchmarkPeersHTTP(b *testing.B) {
	all := httpServers(b)
	for _, c := range bench.Cases() {
		for _, s := range all {
			msg := message(s.Peer, c)
			if msg == nil {
				continue
			}
			b.Run("case="+c.Name+"/server="+s.Name, func(b *testing.B) {
				res := runHTTP(b, s.addr, c, msg, int64(b.N))
				b.ReportMetric(res.Rate(), "calls/s")
				b.ReportMetric(float64(res.Latency.Quantile(0.99).Microseconds()), "p99-µs")
			})
		}
	}
}
