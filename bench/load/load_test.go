package load_test

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

func newEngine(t *testing.T) *dispatch.Engine {
	t.Helper()
	e := dispatch.New(nil)
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// jetrpcTCP and jetrpcHTTP start a real jetrpc server on loopback.
func jetrpcTCP(t *testing.T) string {
	srv := netserver.New(newEngine(t), nil)
	ln := listen(t)
	go srv.Serve(ln)
	t.Cleanup(func() { shutdown(t, srv.Shutdown) })
	return ln.Addr().String()
}

func jetrpcHTTP(t *testing.T) string {
	srv := nethttp.New(newEngine(t), nil)
	ln := listen(t)
	go srv.Serve(ln)
	t.Cleanup(func() { shutdown(t, srv.Shutdown) })
	return ln.Addr().String()
}

func shutdown(t *testing.T, f func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := f(ctx); err != nil {
		t.Error(err)
	}
}

func mix(t *testing.T, spec string) []load.Request {
	t.Helper()
	reqs, err := load.Mix(spec)
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// TestExactCounts: a fixed count is sent exactly, every call is answered
// and matched, over every framing and over HTTP.
func TestExactCounts(t *testing.T) {
	tcp, http := jetrpcTCP(t), jetrpcHTTP(t)
	f := func(name string, cfg load.Config, wantCalls, wantNotes int64) {
		t.Run(name, func(t *testing.T) {
			var progress atomic.Int64
			cfg.Progress = &progress
			res, err := load.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			c := res.Counts
			if c.Sent != cfg.Count || c.Calls != wantCalls || c.Notifications != wantNotes || c.OK != wantCalls || c.Failed() != 0 {
				t.Errorf("counts %+v, want %d calls and %d notifications, all OK", c, wantCalls, wantNotes)
			}
			if res.Latency.Count() != uint64(wantCalls) || progress.Load() != cfg.Count || res.Rate() <= 0 {
				t.Errorf("latency count %d, progress %d, rate %v", res.Latency.Count(), progress.Load(), res.Rate())
			}
		})
	}
	all := mix(t, "all") // 5 requests, one a notification: 1000 = 800 calls + 200 notifications
	for _, k := range []frame.Kind{frame.NDJSON, frame.Header, frame.Len32} {
		f("tcp/"+k.String(), load.Config{Addr: tcp, Framing: k, Conns: 4, Pipeline: 8, Count: 1000, Requests: all}, 800, 200)
	}
	f("tcp/reqresp", load.Config{Addr: tcp, Conns: 3, Pipeline: 1, Count: 999, Requests: mix(t, "small=2,batch10")}, 999, 0)
	f("http/hostclient", load.Config{Addr: http, Transport: load.HTTP, Conns: 4, Count: 1000, Requests: all}, 800, 200)
	f("http/pipelined", load.Config{Addr: http, Transport: load.HTTP, Conns: 2, Pipeline: 4, Count: 1000, Requests: all}, 800, 200)
}

// TestDuration: a run bounded in time ends soon after its bound.
func TestDuration(t *testing.T) {
	addr := jetrpcTCP(t)
	start := time.Now()
	res, err := load.Run(context.Background(), load.Config{Addr: addr, Conns: 2, Pipeline: 4,
		Duration: 300 * time.Millisecond, Requests: mix(t, "small,large")})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if res.OK == 0 || res.Failed() != 0 || res.OK != res.Calls {
		t.Errorf("counts %+v", res.Counts)
	}
}

// TestBadServer: a server that drops, corrupts and misaddresses answers is
// reported in the counts, not as speed.
func TestBadServer(t *testing.T) {
	e := newEngine(t)
	var n atomic.Int64
	bad := &bench.LineServer{Handle: func(dst, line []byte) []byte {
		switch i := n.Add(1); {
		case i%10 == 0: // dropped
			return dst
		case i%10 == 1: // corrupted
			return append(dst, `{"jsonrpc":"2.0","id":`...)
		case i%10 == 2: // an id nobody sent
			return append(dst, `{"jsonrpc":"2.0","id":12345678,"result":1}`...)
		case i%10 == 3: // an error
			return append(dst, strings.Replace(string(e.Process(nil, line)), `"result":19`, `"error":{"code":-32000,"message":"x"}`, 1)...)
		}
		return e.Process(dst, line)
	}}
	ln := listen(t)
	go bad.Serve(ln)
	t.Cleanup(func() { bad.Close() })
	res, err := load.Run(context.Background(), load.Config{Addr: ln.Addr().String(), Conns: 2, Pipeline: 10,
		Count: 1000, Requests: mix(t, "small"), Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Counts
	t.Logf("%+v", c)
	if c.Sent != 1000 || c.OK != 600 || c.Errors != 100 || c.Malformed != 100 || c.Mismatched != 100 || c.Unanswered != 300 {
		t.Errorf("counts %+v", c)
	}
	if c.OK+c.Errors+c.Unanswered != c.Calls {
		t.Errorf("calls do not add up: %+v", c)
	}
}

// TestNoServer: a run that cannot connect fails at once.
func TestNoServer(t *testing.T) {
	ln := listen(t)
	addr := ln.Addr().String()
	ln.Close()
	for _, tr := range []string{load.TCP, load.HTTP} {
		if _, err := load.Run(context.Background(), load.Config{Addr: addr, Transport: tr, Count: 1, Requests: mix(t, "small"), Timeout: time.Second}); err == nil {
			t.Errorf("%s: no error", tr)
		}
	}
	if _, err := load.Run(context.Background(), load.Config{Addr: addr, Requests: mix(t, "small")}); err == nil {
		t.Error("unbounded run accepted")
	}
}

func TestRequestIDs(t *testing.T) {
	f := func(msg string, holes int, want string) {
		t.Helper()
		r, err := load.NewRequest("t", []byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(r.Append(nil, 3)); r.Holes() != holes || got != want {
			t.Errorf("%s: holes %d, got %s, want %s", msg, r.Holes(), got, want)
		}
	}
	f(`{"jsonrpc":"2.0","method":"m","id":1}`, 1, `{"jsonrpc":"2.0","method":"m","id":3072}`)
	f(`{"id" : "x", "jsonrpc":"2.0","method":"m","params":{"id":5}}`, 1, `{"id" : "3072", "jsonrpc":"2.0","method":"m","params":{"id":5}}`)
	f(`{"jsonrpc":"2.0","method":"m"}`, 0, `{"jsonrpc":"2.0","method":"m"}`)
	f(`[{"jsonrpc":"2.0","method":"m","id":1}, {"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","method":"m","id":"a"}]`, 2,
		`[{"jsonrpc":"2.0","method":"m","id":3072}, {"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","method":"m","id":"3073"}]`)
	reqs, err := load.ReadRequests(strings.NewReader("# comment\n\n" + `{"jsonrpc":"2.0","method":"echo","id":1}` + "\n"))
	if err != nil || len(reqs) != 1 || reqs[0].Name != "line 3" {
		t.Errorf("ReadRequests: %v %v", reqs, err)
	}
	if _, err := load.Mix("small,nope"); err == nil {
		t.Error("unknown case accepted")
	}
}
