package democlient_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/bench/demo/democlient"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/vectors"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/jetrpc/jetrpc/openrpc"
)

var quiet = slog.New(slog.DiscardHandler)

// startDemo serves the demo methods (with rpc.discover) on loopback TCP
// and HTTP and returns their addresses.
func startDemo(t testing.TB) (tcpAddr, httpAddr string) {
	t.Helper()
	e := dispatch.New(&dispatch.Options{Logger: quiet})
	if _, err := openrpc.Enable(e, &openrpc.Options{Methods: demo.Docs()}); err != nil {
		t.Fatal(err)
	}
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	opts := &netserver.Options{Logger: quiet}
	raw, web := netserver.New(e, opts), nethttp.New(e, opts)
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go raw.Serve(tl)
	go web.Serve(hl)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		raw.Shutdown(ctx)
		web.Shutdown(ctx)
		e.Close()
	})
	return tl.Addr().String(), hl.Addr().String()
}

// caller is the client side's engine: it answers the server's callback
// ("ping" -> "pong") and counts the subscription notifications.
func caller(t *testing.T, notes *atomic.Int64) *dispatch.Engine {
	e := dispatch.New(&dispatch.Options{Logger: quiet})
	t.Cleanup(e.Close)
	pong := func(_ context.Context, _, dst []byte) ([]byte, error) { return append(dst, `"pong"`...), nil }
	count := func(_ context.Context, _, dst []byte) ([]byte, error) { notes.Add(1); return dst, nil }
	for name, h := range map[string]dispatch.HandlerFunc{"ping": pong, "subscription": count, "demo_subscription": count} {
		if err := e.Register(name, h); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// TestClientEveryMethod calls every demo method through the generated
// client, over TCP and over HTTP.
func TestClientEveryMethod(t *testing.T) {
	tcpAddr, httpAddr := startDemo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var notes atomic.Int64
	tc, err := client.Dial(ctx, "tcp", tcpAddr, &client.Options{Handler: caller(t, &notes), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	hc, err := client.DialHTTP("http://"+httpAddr+"/", &client.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	t.Run("tcp", func(t *testing.T) { everyMethod(ctx, t, democlient.NewClient(tc), true) })
	t.Run("http", func(t *testing.T) { everyMethod(ctx, t, democlient.NewClient(hc), false) })
	deadline := time.Now().Add(5 * time.Second)
	for notes.Load() < 5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := notes.Load(); n != 5 { // subscribe 3 + demo_subscribe 2, over TCP
		t.Errorf("%d subscription notifications, want 5", n)
	}
}

func everyMethod(ctx context.Context, t *testing.T, c *democlient.Client, stream bool) {
	check := func(name string, got, want any, err error) {
		t.Helper()
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, %v; want %#v", name, got, err, want)
		}
	}
	d, err := c.Subtract(ctx, 42, 23)
	check("subtract", d, 19.0, err)
	s, err := c.Sum(ctx, 1, 2, 4)
	check("sum", s, 7.0, err)
	s, err = c.Sum(ctx)
	check("sum()", s, 0.0, err)
	check("update", nil, nil, c.Update(ctx, 1, 2, 3))
	check("notify_hello", nil, nil, c.NotifyHello(ctx, 7))
	check("notify_sum", nil, nil, c.NotifySum(ctx, 1, 2, 4))
	data, err := c.GetData(ctx)
	check("get_data", data, []any{"hello", 5.0}, err)
	echoed, err := c.Echo(ctx, "a", 1.5, map[string]any{"b": nil})
	check("echo", echoed, []any{"a", 1.5, map[string]any{"b": nil}}, err)
	ms, err := c.Sleep(ctx, 5)
	check("sleep", ms, int64(5), err)
	xs, err := c.Blob(ctx, 3)
	check("blob", xs, "xxx", err)
	wantCode(t, "fail", c.Fail(ctx, 4711, "custom", []int{1}), 4711, "custom", `[1]`)
	wantCode(t, "panic", c.Panic(ctx), encode.CodeInternalError, "", "")
	ok, err := c.DemoUnsubscribe(ctx, "0x1")
	check("demo_unsubscribe", ok, true, err)
	n, err := c.Subscribe(ctx, 3)
	id, idErr := c.DemoSubscribe(ctx, 2)
	res, cbErr := c.Callback(ctx, "ping", []int{1})
	if !stream { // plain HTTP POST cannot reach the caller
		wantCode(t, "subscribe", err, demo.CodeNoPeer, "", "")
		wantCode(t, "demo_subscribe", idErr, demo.CodeNoPeer, "", "")
		wantCode(t, "callback", cbErr, demo.CodeNoPeer, "", "")
		return
	}
	check("subscribe", n, int64(3), err)
	if idErr != nil || len(id) < 3 || id[:2] != "0x" {
		t.Errorf("demo_subscribe = %q, %v", id, idErr)
	}
	check("callback", res, "pong", cbErr)
}

func wantCode(t *testing.T, name string, err error, code encode.Code, message, data string) {
	t.Helper()
	var e *encode.Error
	if !errors.As(err, &e) || e.Code != code || message != "" && e.Message != message || data != "" && string(e.Data) != data {
		t.Errorf("%s: error %v (%+v), want code %d %q %s", name, err, e, code, message, data)
	}
}

// impl implements the generated Server as the demo methods behave.
type impl struct{}

func (impl) Subtract(_ context.Context, a, b float64) (float64, error) { return a - b, nil }
func (impl) Sum(_ context.Context, xs ...float64) (float64, error) {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s, nil
}
func (impl) Update(context.Context, ...any) error                { return nil }
func (impl) NotifyHello(context.Context, ...any) error           { return nil }
func (impl) NotifySum(context.Context, ...any) error             { return nil }
func (impl) GetData(context.Context) ([]any, error)              { return []any{"hello", 5}, nil }
func (impl) Echo(_ context.Context, vs ...any) (any, error)      { return vs, nil }
func (impl) Sleep(_ context.Context, ms int64) (int64, error)    { return ms, nil }
func (impl) Panic(context.Context) error                         { panic("impl: panic") }
func (impl) Subscribe(_ context.Context, n int64) (int64, error) { return n, nil }
func (impl) DemoSubscribe(context.Context, int64) (string, error) {
	return "0x1", nil
}
func (impl) DemoUnsubscribe(context.Context, string) (bool, error) { return true, nil }
func (impl) Blob(_ context.Context, n int64) (string, error)       { return strings.Repeat("x", int(n)), nil }
func (impl) Callback(context.Context, string, any) (any, error)    { return nil, nil }
func (impl) Fail(_ context.Context, code int32, message string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil || data == nil {
		raw = nil
	}
	return dispatch.NewError(encode.Code(code), message, raw)
}

var _ democlient.Server = impl{}

// TestServerVectors: the generated server interface, implemented by impl
// and registered with the generated Register, passes the spec vectors.
func TestServerVectors(t *testing.T) {
	e := dispatch.New(&dispatch.Options{Logger: quiet})
	defer e.Close()
	if err := democlient.Register(e, impl{}); err != nil {
		t.Fatal(err)
	}
	vs, err := vectors.Spec()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if err := v.Check(e.Process(nil, []byte(v.Request))); err != nil {
			t.Errorf("%s: %v", v.Name, err)
		}
	}
	// and the generated client talks to it (fail carries code, message, data)
	c := democlient.NewClient(localClient(t, e))
	wantCode(t, "fail", c.Fail(context.Background(), 7, "seven", map[string]int{"x": 1}), 7, "seven", `{"x":1}`)
	if d, err := c.Subtract(context.Background(), 1.5, 0.25); err != nil || d != 1.25 {
		t.Errorf("subtract = %v, %v", d, err)
	}
}

// localClient is a client whose every message goes straight to e.
func localClient(t *testing.T, e *dispatch.Engine) *client.Client {
	a, b := net.Pipe()
	srv := netserver.New(e, &netserver.Options{Logger: quiet})
	ln := &oneConn{c: b, done: make(chan struct{})}
	go srv.Serve(ln)
	c := client.NewConn(a, &client.Options{Logger: quiet})
	t.Cleanup(func() {
		c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return c
}

// oneConn is a listener that accepts one connection.
type oneConn struct {
	c        net.Conn
	done     chan struct{}
	accepted atomic.Bool
	closing  sync.Once
}

func (l *oneConn) Accept() (net.Conn, error) {
	if l.accepted.CompareAndSwap(false, true) {
		return l.c, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConn) Close() error {
	l.closing.Do(func() { close(l.done) })
	return nil
}

func (l *oneConn) Addr() net.Addr { return l.c.LocalAddr() }
