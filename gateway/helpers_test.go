package gateway_test

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/gateway"
	"github.com/jetrpc/jetrpc/netserver"
)

// upstream is a jetrpc server with the demo methods and "count", which
// counts its calls and answers its name.
type upstream struct {
	name  string
	addr  string
	calls atomic.Int64
	mu    sync.Mutex
	seen  map[string]int // method -> calls and notifications
	srv   *netserver.Server
	e     *dispatch.Engine
}

func newUpstream(t *testing.T, name string) *upstream {
	t.Helper()
	u := &upstream{name: name, seen: map[string]int{}}
	u.e = dispatch.New(&dispatch.Options{Observer: nil})
	if err := demo.Register(u.e); err != nil {
		t.Fatal(err)
	}
	who := []byte(`"` + name + `"`)
	for _, m := range []string{"count", "eth_chainId", "debug_trace", "eth_sendRawTransaction", "ping"} {
		m := m
		if err := u.e.RegisterMethod(dispatch.Method{Name: m, Inline: true, Handler: dispatch.HandlerFunc(
			func(ctx context.Context, params, dst []byte) ([]byte, error) {
				u.calls.Add(1)
				u.mu.Lock()
				u.seen[m]++
				u.mu.Unlock()
				return append(dst, who...), nil
			})}); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u.addr = ln.Addr().String()
	u.srv = netserver.New(u.e, nil)
	go u.srv.Serve(ln)
	t.Cleanup(u.stop)
	return u
}

func (u *upstream) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	u.srv.Shutdown(ctx)
	u.e.Close()
}

func (u *upstream) count(method string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.seen[method]
}

// group makes a group over upstreams, one TCP client each.
func group(t *testing.T, name string, idempotent []string, us ...*upstream) *gateway.Group {
	t.Helper()
	g := &gateway.Group{Name: name}
	for _, u := range us {
		c, err := client.Dial(context.Background(), "tcp", u.addr, &client.Options{
			Reconnect: &client.Reconnect{MinDelay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		g.Upstreams, g.URLs = append(g.Upstreams, c), append(g.URLs, "tcp://"+u.addr)
	}
	var opts client.PoolOptions
	if idempotent != nil {
		opts.Retry = &client.RetryPolicy{Idempotent: idempotent, BudgetBurst: 1000}
	}
	p, err := client.NewPool(g.Upstreams, &opts)
	if err != nil {
		t.Fatal(err)
	}
	g.Pool = p
	t.Cleanup(func() { p.Close() })
	return g
}

// engine serves gw: the engine a netserver would serve.
func engine(t *testing.T, gw *gateway.Gateway) *dispatch.Engine {
	t.Helper()
	e := dispatch.New(&dispatch.Options{Forward: gw})
	t.Cleanup(e.Close)
	return e
}

func newGateway(t *testing.T, opts *gateway.Options) *gateway.Gateway {
	t.Helper()
	gw, err := gateway.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return gw
}
