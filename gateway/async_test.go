package gateway_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/gateway"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// slowUpstream is a jetrpc server over TCP with the demo methods and
// slow_idem and slow_once: each counts its call as it starts, waits the
// milliseconds its params give ([ms]) and answers its name.
type slowUpstream struct {
	name     string
	addr     string
	started  sync.Map // method -> *atomic.Int64
	finished atomic.Int64
	srv      *netserver.Server
	e        *dispatch.Engine
}

func newSlowUpstream(t *testing.T, name string) *slowUpstream {
	t.Helper()
	u := &slowUpstream{name: name, e: dispatch.New(nil)}
	if err := demo.Register(u.e); err != nil {
		t.Fatal(err)
	}
	who := []byte(strconv.Quote(name))
	for _, m := range []string{"slow_idem", "slow_once"} {
		if err := u.e.Register(m, dispatch.HandlerFunc(func(ctx context.Context, params, dst []byte) ([]byte, error) {
			u.counter(m).Add(1)
			ms, _ := strconv.Atoi(strings.Trim(string(params), "[]"))
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
			case <-ctx.Done():
			}
			u.finished.Add(1)
			return append(dst, who...), nil
		})); err != nil {
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
	t.Cleanup(func() { u.kill(); u.e.Close() })
	return u
}

func (u *slowUpstream) counter(method string) *atomic.Int64 {
	v, _ := u.started.LoadOrStore(method, new(atomic.Int64))
	return v.(*atomic.Int64)
}

// kill drops the upstream's connections at once, calls in flight
// unanswered.
func (u *slowUpstream) kill() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	u.srv.Shutdown(ctx)
}

// slowGroup is group over slow upstreams.
func slowGroup(t *testing.T, idempotent []string, us ...*slowUpstream) *gateway.Group {
	t.Helper()
	plain := make([]*upstream, len(us))
	for i, u := range us {
		plain[i] = &upstream{addr: u.addr}
	}
	return group(t, "g", idempotent, plain...)
}

// serveTCP serves e over TCP with netserver until the test ends.
func serveTCP(t *testing.T, e *dispatch.Engine) (*netserver.Server, string) {
	t.Helper()
	s := netserver.New(e, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s, ln.Addr().String()
}

// serveHTTP serves e over HTTP and WebSocket (/ws) until the test ends.
func serveHTTP(t *testing.T, e *dispatch.Engine) string {
	t.Helper()
	s := nethttp.New(e, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return ln.Addr().String()
}

func dialTCP(t *testing.T, addr string) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), "tcp", addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestForwardNoWorker: with the engine's only worker held by a batch
// (whose sub-batch waits on a slow upstream), single calls forwarded over
// TCP, WebSocket and HTTP are still answered: none of them needs a
// worker. A second batch, which does, is refused meanwhile (Server
// overloaded), which shows that the worker is held.
func TestForwardNoWorker(t *testing.T) {
	u := newSlowUpstream(t, "a")
	gw := newGateway(t, &gateway.Options{Default: slowGroup(t, nil, u), Timeout: 10 * time.Second})
	e := dispatch.New(&dispatch.Options{Forward: gw, MaxWorkers: 1})
	t.Cleanup(e.Close)
	_, tcpAddr := serveTCP(t, e)
	httpAddr := serveHTTP(t, e)
	ctx := context.Background()

	holder := dialTCP(t, tcpAddr)
	held := make(chan error, 1)
	go func() {
		b := holder.NewBatch()
		bc := b.CallRaw("slow_idem", []byte(`[1500]`))
		err := b.Send(ctx)
		if err == nil {
			err = bc.Err()
		}
		held <- err
	}()
	waitFor(t, func() bool { return u.counter("slow_idem").Load() == 1 })

	ws, err := client.DialWebSocket(ctx, "ws://"+httpAddr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	hc, err := client.DialHTTP("http://"+httpAddr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	tc := dialTCP(t, tcpAddr)
	for name, c := range map[string]*client.Client{"tcp": tc, "ws": ws, "http": hc} {
		for i := range 20 {
			res, err := c.CallRaw(ctx, nil, "subtract", []byte(`[`+strconv.Itoa(i)+`,1]`))
			if err != nil || string(res) != strconv.Itoa(i-1) {
				t.Fatalf("%s call %d: %s %v; want an answer without a worker", name, i, res, err)
			}
		}
	}
	b := tc.NewBatch()
	bc := b.CallRaw("subtract", []byte(`[1,1]`))
	err = b.Send(ctx)
	if err == nil {
		err = bc.Err()
	}
	var re *encode.Error
	if !errors.As(err, &re) || re.Code != encode.CodeOverloaded {
		t.Errorf("a batch while the worker is held: %v; want Server overloaded (the test's premise)", err)
	}
	select {
	case err := <-held:
		t.Fatalf("the holding batch ended early (%v): the test proves nothing", err)
	default:
	}
	if err := <-held; err != nil {
		t.Errorf("the holding batch: %v", err)
	}
}

// waitFor waits up to 5s for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestForwardUpstreamKilled: calls in flight on an upstream that dies. An
// idempotent one is sent again to the other upstream and answered; one of
// any other method is sent exactly once (counted on the upstreams) and
// answered -32000 with the client's id. The engine has one worker, so
// that the calls, all in flight at once, go the asynchronous way.
func TestForwardUpstreamKilled(t *testing.T) {
	a, b := newSlowUpstream(t, "a"), newSlowUpstream(t, "b")
	gw := newGateway(t, &gateway.Options{Default: slowGroup(t, []string{"slow_idem"}, a, b), Timeout: 10 * time.Second})
	e := dispatch.New(&dispatch.Options{Forward: gw, MaxWorkers: 1})
	t.Cleanup(e.Close)
	_, addr := serveTCP(t, e)
	c := dialTCP(t, addr)
	ctx := context.Background()

	const n = 8
	type outcome struct {
		method string
		res    string
		err    error
	}
	out := make(chan outcome, 2*n)
	for _, m := range []string{"slow_idem", "slow_once"} {
		for range n {
			go func() {
				res, err := c.CallRaw(ctx, nil, m, []byte(`[400]`))
				out <- outcome{m, string(res), err}
			}()
		}
	}
	started := func(m string) int64 { return a.counter(m).Load() + b.counter(m).Load() }
	waitFor(t, func() bool { return started("slow_idem") == n && started("slow_once") == n })
	onA := a.counter("slow_once").Load()
	a.kill()
	idemOK, onceFailed := 0, 0
	for range 2 * n {
		o := <-out
		switch {
		case o.method == "slow_idem" && o.err == nil && o.res == `"b"`:
			idemOK++
		case o.method == "slow_idem" && o.err == nil:
			idemOK++ // answered by b before a died
		case o.method == "slow_once" && o.err == nil:
		case o.method == "slow_once":
			var re *encode.Error
			if !errors.As(o.err, &re) || re.Code != encode.CodeServerError {
				t.Errorf("slow_once on a dead upstream: %v; want -32000", o.err)
			}
			onceFailed++
		default:
			t.Errorf("%s: %s %v", o.method, o.res, o.err)
		}
	}
	if idemOK != n {
		t.Errorf("%d of %d idempotent calls answered; want all", idemOK, n)
	}
	if got := started("slow_once"); got != n {
		t.Errorf("slow_once reached the upstreams %d times for %d calls; want exactly once each", got, n)
	}
	if int64(onceFailed) != onA {
		t.Errorf("%d slow_once calls failed, %d were on the killed upstream", onceFailed, onA)
	}
	if onA == 0 {
		t.Log("no slow_once call went to the killed upstream")
	}
}

// TestForwardTimeoutAsync: a call over the gateway's Timeout is answered
// -32003 with the client's id, byte for byte as the worker path answers
// it (Engine.Process), as soon as the time is up.
func TestForwardTimeoutAsync(t *testing.T) {
	u := newSlowUpstream(t, "a")
	gw := newGateway(t, &gateway.Options{Default: slowGroup(t, nil, u), Timeout: 100 * time.Millisecond})
	e := dispatch.New(&dispatch.Options{Forward: gw})
	t.Cleanup(e.Close)
	_, addr := serveTCP(t, e)
	msg := `{"jsonrpc":"2.0","id":"x\u0041","method":"slow_once","params":[2000]}`
	want := string(e.Process(nil, []byte(msg)))
	if !strings.Contains(want, `"id":"x\u0041","error":{"code":-32003`) {
		t.Fatalf("the worker path answers %s", want)
	}
	t0 := time.Now()
	if got := rawCall(t, addr, msg); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("answered after %v; the timeout is 100ms", d)
	}
}

// TestForwardCloseInFlight: client connections that go away, or a server
// that shuts down, with forwarded calls in flight: the calls are abandoned
// (nothing is left pending upstream), nothing panics or is written after
// the connection closed (-race), and no goroutine is left.
func TestForwardCloseInFlight(t *testing.T) {
	u := newSlowUpstream(t, "a")
	g := slowGroup(t, nil, u)
	gw := newGateway(t, &gateway.Options{Default: g}) // no timeout: only the cancel ends them
	e := dispatch.New(&dispatch.Options{Forward: gw})
	t.Cleanup(e.Close)
	s, addr := serveTCP(t, e)
	pending := func() int64 {
		var n int64
		for _, ep := range g.Pool.Stats().Endpoints {
			n += ep.Pending
		}
		return n
	}
	// A client that writes calls and closes at once.
	for range 5 {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []byte
		for i := range 10 {
			msgs = append(msgs, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"slow_once","params":[300]}`+"\n"...)
		}
		nc.Write(msgs)
		nc.Close()
	}
	waitFor(t, func() bool { return u.counter("slow_once").Load() == 50 })
	waitFor(t, func() bool { return pending() == 0 }) // answered, into closed connections

	// Calls with no timeout end when the server shuts down, long before
	// their upstream would answer: its connections cancel them.
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for i := range 5 {
		nc.Write([]byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"slow_once","params":[60000]}` + "\n"))
	}
	waitFor(t, func() bool { return u.counter("slow_once").Load() == 55 })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	s.Shutdown(ctx)
	for deadline := time.Now().Add(3 * time.Second); pending() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls still pending upstream 3s after Shutdown: not cancelled", pending())
		}
	}
	// No goroutine of the gateway's is left once the upstream is gone.
	u.kill()
	waitFor(t, func() bool { return u.finished.Load() == 55 })
	waitFor(t, func() bool { return !stacksHold("client.(*Forward)", "writeRest", "cancelForwards", "gateway.(*") })
}

// stacksHold reports whether a goroutine's stack holds a function whose
// name contains one of names: a goroutine left over (the pooled workers
// and the server's sweeper stay by design, so a count would not tell).
func stacksHold(names ...string) bool {
	buf := make([]byte, 1<<20)
	all := string(buf[:runtime.Stack(buf, true)])
	for _, g := range strings.Split(all, "\n\n") {
		for _, n := range names {
			if strings.Contains(g, n) && !strings.Contains(g, "stacksHold") {
				return true
			}
		}
	}
	return false
}

// TestForwardMaxResponse: an upstream's answer over the engine's
// MaxResponse is answered with the error that says so and the client's
// id, on the worker path and the asynchronous one alike; the counters of
// the route and the pool count every call.
func TestForwardMaxResponse(t *testing.T) {
	u := newSlowUpstream(t, "a")
	g := slowGroup(t, nil, u)
	gw := newGateway(t, &gateway.Options{Default: g, Timeout: 5 * time.Second})
	e := dispatch.New(&dispatch.Options{Forward: gw, MaxResponse: 100})
	t.Cleanup(e.Close)
	_, addr := serveTCP(t, e)
	big := `["` + strings.Repeat("x", 200) + `"]`
	msg := `{"jsonrpc":"2.0","id":"q","method":"echo","params":` + big + `}`
	want := string(e.Process(nil, []byte(msg)))
	if !strings.HasPrefix(want, `{"jsonrpc":"2.0","id":"q","error":`) || !strings.Contains(want, "response over 100 bytes") {
		t.Fatalf("worker path: %s", want)
	}
	if got := rawCall(t, addr, msg); got != want {
		t.Errorf("async path: %s\nwant %s", got, want)
	}
	res, err := dialTCP(t, addr).CallRaw(context.Background(), nil, "echo", []byte(`[1]`))
	if err != nil || string(res) != "[1]" {
		t.Fatalf("a small answer after it: %s %v", res, err)
	}
	if s := gw.Stats(); s.Routes[0].Calls != 3 || s.Groups[0].Pool.Calls != 3 || s.Routes[0].Errors != 0 {
		t.Errorf("counters: route %+v, pool %+v; want 3 calls, no error", s.Routes[0], s.Groups[0].Pool)
	}
}

// rawCall writes msg, one line, to a new TCP connection to addr and
// returns the line it gets back.
func rawCall(t *testing.T, addr, msg string) string {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Write([]byte(msg + "\n")); err != nil {
		t.Fatal(err)
	}
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(line, "\n")
}
