package interop

// jetrpc proxy in front of go-ethereum's rpc server (upstreams nobody here
// wrote) over HTTP, WebSocket and IPC, driven through the real binary.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// gethService is the upstreams' test service: test_echo (idempotent),
// test_send (not: each call is counted by its key), test_who.
type gethService struct {
	name  string
	delay atomic.Int64 // ns added to every tenth call
	calls atomic.Int64
	mu    sync.Mutex
	sends map[string]int
}

func (s *gethService) wait() {
	if n := s.calls.Add(1); n%10 == 0 {
		d := s.delay.Load()
		time.Sleep(time.Duration(d))
	}
}

func (s *gethService) Echo(v json.RawMessage) json.RawMessage { s.wait(); return v }
func (s *gethService) Who() string                            { s.wait(); return s.name }
func (s *gethService) Send(key string) string {
	s.wait()
	s.mu.Lock()
	s.sends[key]++
	s.mu.Unlock()
	return key
}

// gethUpstream is one go-ethereum rpc server on one transport, which the
// test can stop and start again on the same address.
type gethUpstream struct {
	svc       *gethService
	transport string // http, ws or ipc
	addr      string // host:port, or the socket's path
	srv       *rpc.Server
	hs        *http.Server
	ln        net.Listener
}

func newGethUpstream(t *testing.T, svc *gethService, transport, addr string) *gethUpstream {
	t.Helper()
	u := &gethUpstream{svc: svc, transport: transport, addr: addr}
	u.start(t)
	t.Cleanup(u.stop)
	return u
}

func (u *gethUpstream) start(t *testing.T) {
	t.Helper()
	u.srv = rpc.NewServer()
	for _, name := range []string{"test", "other"} {
		if err := u.srv.RegisterName(name, u.svc); err != nil {
			t.Fatal(err)
		}
	}
	network, addr := "tcp", u.addr
	if u.transport == "ipc" {
		network = "unix"
	} else if addr == "" {
		addr = "127.0.0.1:0"
	}
	var err error
	for i := 0; i < 50; i++ { // the port of a stopped upstream may take a moment
		if u.ln, err = net.Listen(network, addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	u.addr = u.ln.Addr().String()
	switch u.transport {
	case "ipc":
		go u.srv.ServeListener(u.ln)
	case "ws":
		u.hs = &http.Server{Handler: u.srv.WebsocketHandler([]string{"*"})}
		go u.hs.Serve(u.ln)
	default:
		u.hs = &http.Server{Handler: u.srv}
		go u.hs.Serve(u.ln)
	}
}

// stop closes the listener and every connection at once: the upstream is
// gone.
func (u *gethUpstream) stop() {
	if u.hs != nil {
		u.hs.Close()
	}
	u.ln.Close()
	u.srv.Stop()
}

func (u *gethUpstream) url() string {
	switch u.transport {
	case "ipc":
		return "ipc://" + u.addr
	case "ws":
		return "ws://" + u.addr
	}
	return "http://" + u.addr
}

func newService(name string) *gethService { return &gethService{name: name, sends: map[string]int{}} }

// post sends body to the proxy's HTTP listener and returns the answer.
func post(t *testing.T, addr, body string) string {
	t.Helper()
	resp, err := http.Post("http://"+addr+"/", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestGatewayGeth: ids of every kind round-trip byte for byte; upstream
// errors pass through; batches with members on two routes, unknown
// methods and notifications are answered as the spec says.
func TestGatewayGeth(t *testing.T) {
	a, b := newService("a"), newService("b")
	ipc := filepath.Join(t.TempDir(), "geth.ipc")
	ups := []*gethUpstream{newGethUpstream(t, a, "http", ""), newGethUpstream(t, a, "ws", ""), newGethUpstream(t, a, "ipc", ipc)}
	other := newGethUpstream(t, b, "http", "")
	p := startCommand(t, "proxy", "--upstream", ups[0].url()+","+ups[1].url()+","+ups[2].url(),
		"--route", "other_*="+other.url(), "--route", "admin_=", "--idempotent", "test_echo,test_who")
	f := func(in, want string) {
		t.Helper()
		if got := post(t, p.HTTP, in); got != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
	for _, id := range []string{`9007199254740993`, `123456789012345678901234567890`, `1e3`, `-0`, `"a\u0041\n"`, `"😀"`, `null`, `0.5`} {
		for range 3 { // each upstream
			f(`{"jsonrpc":"2.0","id":`+id+`,"method":"test_echo","params":[{"x":[1,"\u00e9"]}]}`,
				`{"jsonrpc":"2.0","id":`+id+`,"result":{"x":[1,"\u00e9"]}}`)
		}
	}
	if n := a.calls.Load(); n != 24 {
		t.Errorf("upstreams got %d calls, want 24", n)
	}
	// geth's own error for a method it lacks, and for bad params.
	f(`{"jsonrpc":"2.0","id":1,"method":"test_nope"}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method test_nope does not exist/is not available"}}`)
	f(`{"jsonrpc":"2.0","id":2,"method":"admin_peers"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`)
	// A batch over two routes, a refused method, a notification, an invalid member.
	f(`[{"jsonrpc":"2.0","id":1,"method":"test_who"},{"jsonrpc":"2.0","id":"2","method":"other_who"},`+
		`{"jsonrpc":"2.0","method":"test_send","params":["n1"]},{"jsonrpc":"2.0","id":3,"method":"admin_peers"},{"id":4},`+
		`{"jsonrpc":"2.0","id":5,"method":"other_echo","params":[7]}]`,
		`[{"jsonrpc":"2.0","id":1,"result":"a"},{"jsonrpc":"2.0","id":"2","result":"b"},`+
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}},`+
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request","data":"jsonrpc must be \"2.0\""}},`+
			`{"jsonrpc":"2.0","id":5,"result":7}]`)
	f(`[{"jsonrpc":"2.0","method":"test_send","params":["n2"]}]`, ``)
	deadline := time.Now().Add(callTimeout)
	for a.sent("n1")+a.sent("n2") != 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if a.sent("n1") != 1 || a.sent("n2") != 1 {
		t.Errorf("notifications reached the upstreams %d and %d times, want 1", a.sent("n1"), a.sent("n2"))
	}
	// Through go-ethereum's own client, over the proxy's HTTP.
	c, err := rpc.Dial("http://" + p.HTTP)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	equal(t, "test_who via geth's client", call[string](t, c, "test_who"), "a")
}

// Ticks is a subscription: n notifications 0..n-1, every ms milliseconds.
func (s *gethService) Ticks(ctx context.Context, n, ms int) (*rpc.Subscription, error) {
	notifier, ok := rpc.NotifierFromContext(ctx)
	if !ok {
		return nil, rpc.ErrNotificationsUnsupported
	}
	sub := notifier.CreateSubscription()
	go func() {
		for i := range n {
			if notifier.Notify(sub.ID, i) != nil {
				return
			}
			select {
			case <-sub.Err():
				return
			case <-time.After(time.Duration(ms) * time.Millisecond):
			}
		}
	}()
	return sub, nil
}

// TestGatewaySubscribe: a subscription through the gateway (client over
// WebSocket, upstream over WebSocket or IPC) delivers every notification
// in order; killing its upstream ends it with an error the client sees,
// and the client's connection stays up.
func TestGatewaySubscribe(t *testing.T) {
	for _, transport := range []string{"ws", "ipc"} {
		t.Run(transport, func(t *testing.T) {
			svc := newService("a")
			addr := ""
			if transport == "ipc" {
				addr = filepath.Join(t.TempDir(), "geth.ipc")
			}
			up := newGethUpstream(t, svc, transport, addr)
			p := startCommand(t, "proxy", "--upstream", up.url())
			c, err := rpc.DialWebsocket(ctx(t), "ws://"+p.HTTP+"/ws", "")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ch := make(chan int, 1000)
			sub, err := c.Subscribe(ctx(t), "test", ch, "ticks", 500, 0)
			if err != nil {
				t.Fatal(err)
			}
			for want := range 500 {
				select {
				case got := <-ch:
					if got != want {
						t.Fatalf("notification %d: got %d", want, got)
					}
				case err := <-sub.Err():
					t.Fatalf("subscription ended after %d: %v", want, err)
				case <-time.After(callTimeout):
					t.Fatalf("notification %d never came", want)
				}
			}
			sub.Unsubscribe()

			// A long one, then its upstream goes away.
			ch2 := make(chan int, 1000)
			sub2, err := c.Subscribe(ctx(t), "test", ch2, "ticks", 1000000, 5)
			if err != nil {
				t.Fatal(err)
			}
			for want := range 3 {
				if got := <-ch2; got != want {
					t.Fatalf("notification %d: got %d", want, got)
				}
			}
			up.stop()
			select {
			case err := <-sub2.Err():
				if err == nil {
					t.Fatal("the subscription ended without an error")
				}
				t.Logf("the client saw: %v", err)
			case <-time.After(callTimeout):
				t.Fatal("the subscription did not end when its upstream went away")
			}
			// The connection is still up: a call is answered (an error: no upstream).
			var out string
			err = c.CallContext(ctx(t), &out, "test_who")
			var re rpc.Error
			if !errors.As(err, &re) || re.ErrorCode() != -32000 {
				t.Fatalf("call after the upstream went: %v, want -32000 over the same connection", err)
			}
		})
	}
}

func (s *gethService) sent(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sends[key]
}

// TestGatewayFailover: one of three upstreams killed under load: no
// idempotent call fails, and each non-idempotent call reaches the
// upstreams at most once (exactly once when it succeeded). Then all are
// killed: a clear error within the timeout, the breakers open; they come
// back: calls succeed and the breakers close.
func TestGatewayFailover(t *testing.T) {
	svc := newService("a")
	ipc := filepath.Join(t.TempDir(), "geth.ipc")
	ups := []*gethUpstream{newGethUpstream(t, svc, "http", ""), newGethUpstream(t, svc, "ws", ""), newGethUpstream(t, svc, "ipc", ipc)}
	admin := freeAddr(t)
	p := startCommand(t, "proxy", "--upstream", ups[0].url()+","+ups[1].url()+","+ups[2].url(),
		"--idempotent", "test_echo", "--timeout", "2s", "--probe", "test_who", "--probe-every", "100ms", "--admin", admin)
	c, err := rpc.Dial("http://" + p.HTTP)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	var failed, ok atomic.Int64
	var sendOK sync.Map
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var out int
				cctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				err := c.CallContext(cctx, &out, "test_echo", i)
				if w == 0 && i%5 == 0 { // the non-idempotent method, each call its own key
					key := string(rune('a'+w)) + itoa(i)
					var got string
					if c.CallContext(cctx, &got, "test_send", key) == nil {
						sendOK.Store(key, true)
					}
				}
				cancel()
				if err != nil || out != i {
					failed.Add(1)
					t.Logf("test_echo %d: %v", i, err)
				} else {
					ok.Add(1)
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	ups[0].stop() // killed under load
	time.Sleep(700 * time.Millisecond)
	close(stop)
	wg.Wait()
	if failed.Load() != 0 || ok.Load() < 100 {
		t.Errorf("%d idempotent calls failed, %d succeeded; want 0 failed", failed.Load(), ok.Load())
	}
	svc.mu.Lock()
	for key, n := range svc.sends {
		if n != 1 {
			t.Errorf("test_send %s reached the upstreams %d times", key, n)
		}
	}
	svc.mu.Unlock()
	sendOK.Range(func(k, _ any) bool {
		if svc.sent(k.(string)) != 1 {
			t.Errorf("test_send %s answered but counted %d times", k, svc.sent(k.(string)))
		}
		return true
	})

	// All down: a clear error, soon.
	ups[1].stop()
	ups[2].stop()
	start := time.Now()
	got := post(t, p.HTTP, `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[1]}`)
	if !strings.Contains(got, `"code":-32000,"message":"Upstream unavailable"`) || time.Since(start) > 3*time.Second {
		t.Errorf("all down: %s after %v", got, time.Since(start))
	}
	for range 10 { // failures open the breakers
		post(t, p.HTTP, `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[1]}`)
	}
	awaitMetric(t, admin, `jetrpc_gateway_upstream_breaker_open{group="default",upstream="`+ups[1].url()+`"} 1`)
	awaitReady(t, p.HTTP, http.StatusServiceUnavailable)
	// Back: the breakers close.
	for _, u := range ups {
		u.start(t)
	}
	deadline := time.Now().Add(callTimeout)
	for !strings.Contains(post(t, p.HTTP, `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[1]}`), `"result":1`) {
		if time.Now().After(deadline) {
			t.Fatal("no answer after the upstreams came back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	awaitReady(t, p.HTTP, http.StatusOK)
	for range 50 {
		post(t, p.HTTP, `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[1]}`)
	}
	awaitMetric(t, admin, `jetrpc_gateway_upstream_breaker_open{group="default",upstream="`+ups[0].url()+`"} 0`)
}

// TestGatewayHedge: one upstream of three made slow (every tenth call
// takes 300ms, so the balancer keeps using it: about 3% of all calls
// would take 300ms); with --hedge-after those calls are hedged, so the p99
// stays far below the delay.
func TestGatewayHedge(t *testing.T) {
	fast, slow := newService("fast"), newService("slow")
	slow.delay.Store(int64(300 * time.Millisecond))
	ups := []*gethUpstream{newGethUpstream(t, fast, "http", ""), newGethUpstream(t, fast, "http", ""), newGethUpstream(t, slow, "http", "")}
	p := startCommand(t, "proxy", "--upstream", ups[0].url()+","+ups[1].url()+","+ups[2].url(),
		"--idempotent", "test_*", "--hedge-after", "20ms")
	c, err := rpc.Dial("http://" + p.HTTP)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Concurrent callers, so that the balancer sends the slow upstream
	// its share (idle, it would prefer the fast ones every time).
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range 60 {
				t0 := time.Now()
				var out int
				cctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				err := c.CallContext(cctx, &out, "test_echo", i)
				cancel()
				if err != nil || out != i {
					t.Errorf("call %d: %v", i, err)
					return
				}
				mu.Lock()
				lat = append(lat, time.Since(t0))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p99 := lat[len(lat)*99/100]
	if slow.calls.Load() < 10 {
		t.Errorf("the slow upstream got %d calls, none of them slow: the test tests nothing", slow.calls.Load())
	}
	if p99 >= 150*time.Millisecond {
		t.Errorf("p99 %v with a 300ms upstream hedged after 20ms, want well under 150ms", p99)
	}
	t.Logf("p50 %v p99 %v, slow upstream calls %d", lat[len(lat)/2], p99, slow.calls.Load())
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func awaitMetric(t *testing.T, admin, line string) {
	t.Helper()
	deadline := time.Now().Add(callTimeout)
	var body []byte
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + admin + "/metrics")
		if err == nil {
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if bytes.Contains(body, []byte(line)) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no %q in /metrics:\n%s", line, grepGateway(body))
}

func grepGateway(b []byte) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "jetrpc_gateway_upstream") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func awaitReady(t *testing.T, addr string, status int) {
	t.Helper()
	deadline := time.Now().Add(callTimeout)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == status {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never answered %d", status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
