package nethttp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

func TestHTTPHealth(t *testing.T)        { httpSuiteHealth(t, startFastHTTP) }
func TestHTTPHandlerHealth(t *testing.T) { httpSuiteHealth(t, startStdHTTP) }

// httpSuiteHealth checks the probes: GET and HEAD of /healthz and /readyz,
// 503 on /readyz (only) once the Health drains, "Connection: close" on the
// answers to calls from then on, configurable paths and "-" for none.
func httpSuiteHealth(t *testing.T, start httpStart) {
	health := new(netserver.Health)
	h := start(t, &netserver.Options{Health: health})
	probe := func(method, path string, status int, body string) {
		t.Helper()
		r, err := h.do(method, path, nil, false)
		if err != nil || r.status != status || string(r.body) != body {
			t.Errorf("%s /%s: got %d %q %v, want %d %q", method, path, r.status, r.body, err, status, body)
		}
		if err == nil && r.header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("%s /%s: Content-Type %q", method, path, r.header.Get("Content-Type"))
		}
	}
	probe(http.MethodGet, "healthz", 200, "ok\n")
	probe(http.MethodGet, "readyz", 200, "ok\n")
	probe(http.MethodHead, "readyz", 200, "")
	probe(http.MethodGet, "readyz?full=1", 200, "ok\n")
	h.post(httpSubtract).wantCall(t, `"result":19`)
	// a POST to a probe's path is a call like on any path
	if r, err := h.do(http.MethodPost, "readyz", []byte(httpSubtract), false); err != nil || !strings.Contains(string(r.body), `"result":19`) {
		t.Errorf("POST /readyz: %d %s %v, want the call answered", r.status, r.body, err)
	}
	if r, _ := h.do(http.MethodPut, "readyz", nil, false); r.status != http.StatusMethodNotAllowed {
		t.Errorf("PUT /readyz: %d, want 405", r.status)
	}

	// A ready check (Health.SetReadyCheck) fails /readyz only; calls go
	// on.
	var down atomic.Bool
	health.SetReadyCheck(func() error {
		if down.Load() {
			return errors.New("no upstream ready")
		}
		return nil
	})
	probe(http.MethodGet, "readyz", 200, "ok\n")
	down.Store(true)
	probe(http.MethodGet, "readyz", 503, "no upstream ready\n")
	probe(http.MethodGet, "healthz", 200, "ok\n")
	if rr := httptest.NewRecorder(); true {
		nethttp.ReadyHandler(health).ServeHTTP(rr, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		if rr.Code != 503 || rr.Body.String() != "no upstream ready\n" {
			t.Errorf("ReadyHandler with a failing check: %d %q", rr.Code, rr.Body.String())
		}
	}
	h.post(httpSubtract).wantCall(t, `"result":19`) // calls go on
	down.Store(false)
	probe(http.MethodGet, "readyz", 200, "ok\n")
	health.SetReadyCheck(nil)

	health.Drain()
	probe(http.MethodGet, "readyz", 503, "draining\n")
	probe(http.MethodHead, "readyz", 503, "")
	probe(http.MethodGet, "healthz", 200, "ok\n")
	r, err := freshClient(t).post(h.url, httpSubtract)
	if err != nil || !strings.Contains(string(r.body), `"result":19`) || !r.close {
		t.Errorf("a call while draining: %d %s %v (close %v), want the result and Connection: close", r.status, r.body, err, r.close)
	}

	h2 := start(t, &netserver.Options{HealthPath: "/live", ReadyPath: "-"})
	for path, want := range map[string]int{"live": 200, "healthz": 405, "readyz": 405, "-": 405} {
		if r, err := h2.do(http.MethodGet, path, nil, false); err != nil || r.status != want {
			t.Errorf("custom paths: GET /%s: %d %v, want %d", path, r.status, err, want)
		}
	}
}

// TestDrain is the shutdown of a TCP Server and an HTTPServer sharing one
// Health, with a drain delay: /readyz turns 503 while the listeners are
// still open (each probe and call here dials anew), a call made during the
// delay is answered on both transports, the calls in flight since before
// the shutdown are answered after it, and only then do the listeners close.
func TestDrain(t *testing.T) {
	const delay = 3 * time.Second // far longer than the checks below take, even under -race on a busy machine
	health := new(netserver.Health)
	opts := &netserver.Options{Health: health, DrainDelay: delay, Logger: quietLog}
	h := startFastHTTP(t, opts)
	e, tcpStarted := newHTTPEngine(t)
	raw := netserver.New(e, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- raw.Serve(ln) }()
	httpAddr := strings.TrimSuffix(strings.TrimPrefix(h.url, "http://"), "/")
	fresh := freshClient(t)

	// calls in flight: they outlast the drain delay
	slow := `{"jsonrpc":"2.0","method":"sleep","params":[3500],"id":"slow"}`
	httpSlow := make(chan freshReply, 1)
	go func() {
		r, err := fresh.post(h.url, slow)
		if err != nil {
			t.Errorf("HTTP call in flight: %v", err)
		}
		httpSlow <- r
	}()
	h.awaitStart("sleep")
	tc := dialTCP(t, ln.Addr().String())
	tc.send(slow)
	if m := <-tcpStarted; m != "sleep" {
		t.Fatalf("started %s", m)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	shutdown := make(chan error, 2)
	go func() { shutdown <- h.stop(ctx) }()
	go func() { shutdown <- raw.Shutdown(ctx) }()

	// /readyz turns 503 while the listener still accepts
	deadline := time.Now().Add(testWait)
	for {
		r, err := fresh.get("http://" + httpAddr + "/readyz")
		if err != nil {
			t.Fatalf("GET /readyz during the drain: %v", err)
		}
		if r.status == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still %d", r.status)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if r, err := fresh.get("http://" + httpAddr + "/healthz"); err != nil || r.status != 200 {
		t.Errorf("GET /healthz during the drain: %d %v, want 200", r.status, err)
	}
	// calls made during the drain delay are answered, on new connections
	r, err := fresh.post(h.url, httpSubtract)
	if err != nil || !strings.Contains(string(r.body), `"result":19`) || !r.close {
		t.Errorf("HTTP call during the drain: %d %s %v (close %v), want the result and Connection: close",
			r.status, r.body, err, r.close)
	}
	tc2 := dialTCP(t, ln.Addr().String())
	tc2.send(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}`)
	if got := tc2.recv(); got != `{"jsonrpc":"2.0","id":2,"result":19}` {
		t.Errorf("TCP call during the drain: %s", got)
	}
	select {
	case err := <-shutdown:
		t.Fatalf("Shutdown returned (%v) while calls were in flight", err)
	default:
	}

	// the calls in flight are answered, then everything closes
	if r := <-httpSlow; r.status != 200 || string(r.body) != `{"jsonrpc":"2.0","id":"slow","result":3500}` || !r.close {
		t.Errorf("HTTP call in flight: %d %s (close %v)", r.status, r.body, r.close)
	}
	if got := tc.recv(); got != `{"jsonrpc":"2.0","id":"slow","result":3500}` {
		t.Errorf("TCP call in flight: %s", got)
	}
	tc.expectEOF()
	tc2.expectEOF()
	for range 2 {
		if err := <-shutdown; err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	}
	if err := <-served; !errors.Is(err, netserver.ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
	for _, addr := range []string{httpAddr, ln.Addr().String()} {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts after Shutdown", addr)
		}
	}
}

// TestDrainContext: Shutdown's context bounds the drain delay too; the
// shutdown then goes on as one whose context has ended.
func TestDrainContext(t *testing.T) {
	e, _ := newHTTPEngine(t)
	raw := netserver.New(e, &netserver.Options{DrainDelay: time.Hour, Logger: quietLog})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- raw.Shutdown(ctx) }()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown: %v", err)
		}
	case <-time.After(testWait):
		t.Fatal("Shutdown waited out an hour's drain delay")
	}
}

// TestListenReusePort: two servers bind one port with ReusePort and both
// answer; a listener without it cannot bind that port.
func TestListenReusePort(t *testing.T) {
	ctx := context.Background()
	rp := &netserver.ListenOptions{ReusePort: true}
	ln1, err := netserver.Listen(ctx, "127.0.0.1:0", rp)
	if err != nil {
		t.Fatal(err)
	}
	addr := ln1.Addr().String()
	ln2, err := netserver.Listen(ctx, addr, rp)
	if err != nil {
		ln1.Close()
		t.Fatalf("second listener on %s: %v", addr, err)
	}
	if ln, err := netserver.Listen(ctx, addr, nil); err == nil {
		ln.Close()
		t.Errorf("a listener without ReusePort bound %s too", addr)
	} else if !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("without ReusePort: %v, want EADDRINUSE", err)
	}
	var stop []func()
	for i, ln := range []net.Listener{ln1, ln2} {
		e, _ := newHTTPEngine(t)
		s := netserver.New(e, &netserver.Options{Logger: quietLog})
		served := make(chan error, 1)
		go func() { served <- s.Serve(ln) }()
		stop = append(stop, func() {
			ctx, cancel := context.WithTimeout(context.Background(), testWait)
			defer cancel()
			if err := s.Shutdown(ctx); err != nil {
				t.Errorf("server %d: Shutdown: %v", i, err)
			}
			<-served
		})
	}
	// the kernel spreads connections over both; each must be served
	for i := range 8 {
		c := dialTCP(t, addr)
		c.send(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
		if got := c.recv(); got != `{"jsonrpc":"2.0","id":1,"result":19}` {
			t.Errorf("connection %d: %s", i, got)
		}
		c.nc.Close()
	}
	// with one of them shut down, the other still serves the port
	stop[0]()
	c := dialTCP(t, addr)
	c.send(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	if got := c.recv(); got != `{"jsonrpc":"2.0","id":1,"result":19}` {
		t.Errorf("after one shut down: %s", got)
	}
	c.nc.Close()
	stop[1]()
}

const testWait = 5 * time.Second

var quietLog = slog.New(slog.DiscardHandler)

// freshClient makes every request on a new connection, so that each one
// shows that the listener still accepts.
type freshHTTP struct{ c *http.Client }

func freshClient(t *testing.T) freshHTTP {
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return freshHTTP{&http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

// freshReply is an httpReply and whether the server said "Connection:
// close" (net/http takes that header out of the response's).
type freshReply struct {
	httpReply
	close bool
}

func (f freshHTTP) get(url string) (freshReply, error) {
	resp, err := f.c.Get(url)
	return readReply(resp, err)
}

func (f freshHTTP) post(url, msg string) (freshReply, error) {
	resp, err := f.c.Post(url, "application/json", strings.NewReader(msg))
	return readReply(resp, err)
}

func readReply(resp *http.Response, err error) (freshReply, error) {
	if err != nil {
		return freshReply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return freshReply{httpReply{status: resp.StatusCode, header: resp.Header, body: b}, resp.Close}, err
}

// tcpClient is one NDJSON connection with bounded reads.
type tcpClient struct {
	t  *testing.T
	nc net.Conn
	fr *frame.Reader
}

func dialTCP(t *testing.T, addr string) *tcpClient {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, testWait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	return &tcpClient{t: t, nc: nc, fr: frame.NewReader(nc, frame.NDJSON, 0)}
}

func (c *tcpClient) send(msg string) {
	c.t.Helper()
	if _, err := c.nc.Write(frame.AppendFrame(nil, frame.NDJSON, []byte(msg))); err != nil {
		c.t.Fatal(err)
	}
}

func (c *tcpClient) recv() string {
	c.t.Helper()
	f, err := c.fr.Next()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return string(bytes.Clone(f))
}

func (c *tcpClient) expectEOF() {
	c.t.Helper()
	if f, err := c.fr.Next(); err != io.EOF {
		c.t.Errorf("got %q %v, want EOF", f, err)
	}
}
