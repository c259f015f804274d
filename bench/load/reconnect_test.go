package load_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// TestReconnect restarts the server under a pipelined TCP and WebSocket
// load with Reconnect: a second server takes the port (SO_REUSEPORT), the
// first shuts down gracefully; every connection carries on on the second,
// every call either server started was answered, and the only calls not
// answered are the ones dropped with the first server's connections (which
// it never read).
func TestReconnect(t *testing.T) {
	for _, transport := range []string{load.TCP, load.WS} {
		t.Run(transport, func(t *testing.T) {
			var started atomic.Int64
			ctx := context.Background()
			rp := &netserver.ListenOptions{ReusePort: true}
			serve := func(addr string) (string, func()) {
				t.Helper()
				e := dispatch.New(nil)
				count := func(_ string, next dispatch.Handler) dispatch.Handler {
					return dispatch.HandlerFunc(func(ctx context.Context, params, dst []byte) ([]byte, error) {
						started.Add(1)
						return next.ServeRPC(ctx, params, dst)
					})
				}
				if err := e.Use(count); err != nil {
					t.Fatal(err)
				}
				if err := demo.Register(e); err != nil {
					t.Fatal(err)
				}
				ln, err := netserver.Listen(ctx, addr, rp)
				if err != nil {
					t.Fatal(err)
				}
				var serve func() error
				var stop func(context.Context) error
				if transport == load.TCP {
					s := netserver.New(e, nil)
					serve, stop = func() error { return s.Serve(ln) }, s.Shutdown
				} else {
					s := nethttp.New(e, nil)
					serve, stop = func() error { return s.Serve(ln) }, s.Shutdown
				}
				done := make(chan error, 1)
				go func() { done <- serve() }()
				var once atomic.Bool
				shut := func() {
					if once.Swap(true) {
						return
					}
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					defer cancel()
					if err := stop(ctx); err != nil {
						t.Error(err)
					}
					<-done
					e.Close()
				}
				t.Cleanup(shut)
				return ln.Addr().String(), shut
			}
			addr, stopFirst := serve("127.0.0.1:0")
			reqs, err := load.Mix("small")
			if err != nil {
				t.Fatal(err)
			}
			type result struct {
				res *load.Result
				err error
			}
			got := make(chan result, 1)
			go func() {
				res, err := load.Run(ctx, load.Config{Addr: addr, Transport: transport, Conns: 4, Pipeline: 8,
					Duration: 1500 * time.Millisecond, Requests: reqs, Timeout: 5 * time.Second, Reconnect: true})
				got <- result{res, err}
			}()
			time.Sleep(300 * time.Millisecond)
			serve(addr)
			stopFirst()
			r := <-got
			if r.err != nil {
				t.Fatal(r.err)
			}
			c := r.res.Counts
			t.Logf("%+v", c)
			if c.Reconnects < 4 || c.OK == 0 || c.Unanswered != 0 || c.Mismatched != 0 || c.Malformed != 0 || c.Errors != 0 {
				t.Errorf("counts %+v: want >= 4 reconnects, answers, nothing unanswered, mismatched, malformed or failed", c)
			}
			if c.OK+c.Dropped != c.Calls || c.Calls != c.Sent {
				t.Errorf("counts %+v: calls sent %d, answered %d + dropped %d", c, c.Calls, c.OK, c.Dropped)
			}
			if n := started.Load(); n != c.OK {
				t.Errorf("the servers started %d calls, %d were answered", n, c.OK)
			}
		})
	}
}
