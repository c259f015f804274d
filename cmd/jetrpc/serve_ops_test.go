package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeOpsFlags checks the operations flags: their defaults, and the
// message and exit code 2 of each bad value.
func TestServeOpsFlags(t *testing.T) {
	var stderr strings.Builder
	cfg, err := parseServe(nil, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.ops
	if o.admin != "" || !o.metrics || o.metricsOn() || o.trace != "" || o.drain != 0 || o.reusePort ||
		o.level != slog.LevelInfo || o.slowCall != 0 {
		t.Errorf("defaults %+v", o)
	}
	cfg, err = parseServe([]string{"--admin", "127.0.0.1:0", "--drain", "1.5s", "--reuseport", "--log-level", "DEBUG",
		"--slow-call", "250ms", "--trace", "http://127.0.0.1:4318"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	o = cfg.ops
	if !o.metricsOn() || o.drain != 1500*time.Millisecond || !o.reusePort || o.level != slog.LevelDebug ||
		o.slowCall != 250*time.Millisecond || o.trace != "http://127.0.0.1:4318" {
		t.Errorf("parsed %+v", o)
	}
	for _, args := range [][]string{
		{"--metrics=false"}, // off needs no --admin
		{"--admin", "127.0.0.1:0", "--metrics=false"},
		{"--trace", "stdout"},
		{"--trace", "https://collector.example:4318/v1/traces"},
		{"--trace", "localhost:4318"},
		{"--log-level", "warn"},
		{"--log-level", "error"},
	} {
		if _, err := parseServe(args, &stderr); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}

	f := func(want string, args ...string) {
		t.Helper()
		var stdout, stderr syncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		code := run(ctx, append([]string{"serve"}, args...), strings.NewReader(""), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), want) || strings.Contains(stderr.String(), "listening") {
			t.Errorf("serve %q: exit %d, stderr %q; want exit 2 and %q", args, code, stderr.String(), want)
		}
	}
	f("--drain -1s: must not be negative", "--drain", "-1s")
	f(`invalid value "soon" for flag -drain`, "--drain", "soon")
	f("--slow-call -5ms: must not be negative", "--slow-call", "-5ms")
	f(`invalid value "10" for flag -slow-call`, "--slow-call", "10")
	f(`--log-level "loud": must be debug, info, warn or error`, "--log-level", "loud")
	f(`--admin "nonsense": address nonsense: missing port in address`, "--admin", "nonsense")
	f(`--admin "127.0.0.1:99999"`, "--admin", "127.0.0.1:99999")
	f("--metrics: needs --admin ADDR", "--metrics")
	f(`invalid boolean value "maybe" for -metrics`, "--metrics=maybe")
	f(`invalid boolean value "yes please" for -reuseport`, "--reuseport=yes please")
	f(`--trace "ftp://collector:4318": an endpoint URL must be http:// or https:// with a host`, "--trace", "ftp://collector:4318")
	f(`--trace "http://": an endpoint URL must be http:// or https:// with a host`, "--trace", "http://")
	f(`--trace "collector": must be stdout, an OTLP/HTTP URL (http://host:4318) or host:port`, "--trace", "collector")
	f("--trace stdout: stdout carries the --stdio messages", "--stdio", "--trace", "stdout")
}

// TestBinaryAdmin runs the built binary with --admin and --drain: the admin
// listener serves /metrics (after a call, with its count), pprof and the
// probes; the public HTTP listener serves the probes but never pprof. On
// SIGTERM both /readyz answer 503 while a call is still answered, then the
// process exits 0 and logs the calls it handled.
func TestBinaryAdmin(t *testing.T) {
	p := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0", "--admin", "127.0.0.1:0",
		"--drain", "3s")
	addrs := p.stderr.listening(t, "tcp", "http", "admin")
	admin, public := "http://"+addrs["admin"], "http://"+addrs["http"]
	c := newTestHTTP(t)
	c.post(t, public, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, `"result":19`)

	c.expect(t, admin+"/healthz", 200, "ok")
	c.expect(t, admin+"/readyz", 200, "ok")
	c.expect(t, admin+"/debug/pprof/", 200, "goroutine")
	c.expect(t, admin+"/debug/pprof/cmdline", 200, "serve")
	c.expect(t, admin+"/debug/pprof/goroutine?debug=1", 200, "goroutine profile")
	c.expect(t, admin+"/metrics", 200, `jetrpc_calls_total{code="ok",method="subtract"} 1`)
	c.expect(t, admin+"/metrics", 200, "go_goroutines")
	c.expect(t, admin+"/", 404, "")

	c.expect(t, public+"/healthz", 200, "ok")
	c.expect(t, public+"/readyz", 200, "ok")
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/cmdline", "/debug/pprof/goroutine?debug=1", "/metrics"} {
		code, body := c.get(t, public+path)
		if code == 200 || strings.Contains(body, "goroutine") || strings.Contains(body, "jetrpc_") {
			t.Errorf("public GET %s: %d %q, want it not served", path, code, body)
		}
	}

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	c.await(t, public+"/readyz", 503)
	c.expect(t, admin+"/readyz", 503, "draining")
	c.expect(t, public+"/healthz", 200, "ok")
	c.post(t, public, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}`, `"result":19`)
	tc, err := net.DialTimeout("tcp", addrs["tcp"], 5*time.Second)
	if err != nil {
		t.Fatalf("TCP during the drain: %v", err)
	}
	tc.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(tc, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":3}`+"\n")
	buf := make([]byte, 256)
	n, err := tc.Read(buf)
	if err != nil || string(buf[:n]) != `{"jsonrpc":"2.0","id":3,"result":19}`+"\n" {
		t.Errorf("TCP call during the drain: %q %v", buf[:n], err)
	}
	if _, err := tc.Read(buf); err != io.EOF {
		t.Errorf("TCP after the drain: %v, want EOF", err)
	}
	tc.Close()
	if code := p.exit(t); code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0", code)
	}
	log := p.stderr.String()
	for _, want := range []string{"msg=draining for=3s", "msg=\"shutting down\"", "msg=stopped calls=3"} {
		if !strings.Contains(log, want) {
			t.Errorf("log without %q:\n%s", want, log)
		}
	}
}

// TestBinaryMetricsOff: with --metrics=false the admin listener has no
// /metrics, and --log-level error keeps the info records out.
func TestBinaryMetricsOff(t *testing.T) {
	p := startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "", "--admin", "127.0.0.1:0", "--metrics=false",
		"--log-level", "error")
	addrs := p.stderr.listening(t, "admin")
	c := newTestHTTP(t)
	c.expect(t, "http://"+addrs["admin"]+"/metrics", 404, "")
	c.expect(t, "http://"+addrs["admin"]+"/readyz", 200, "ok")
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.exit(t); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	if log := p.stderr.String(); strings.Contains(log, "level=INFO") {
		t.Errorf("--log-level error logged info records:\n%s", log)
	}
}

// TestBinaryReusePort: two processes with --reuseport serve one TCP and
// one HTTP port; a third without it cannot bind them (exit 1).
func TestBinaryReusePort(t *testing.T) {
	tcpPort, httpPort := freePort(t), freePort(t)
	args := []string{"serve", "--reuseport", "--tcp", "127.0.0.1:" + tcpPort, "--http", "127.0.0.1:" + httpPort}
	a := startBinary(t, nil, nil, args...)
	a.stderr.listening(t, "tcp", "http")
	b := startBinary(t, nil, nil, args...)
	b.stderr.listening(t, "tcp", "http")
	c := newTestHTTP(t)
	for i := range 6 { // each on a new connection: the kernel picks a process
		c.post(t, "http://127.0.0.1:"+httpPort, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":`+strconv.Itoa(i)+`}`, `"result":19`)
	}
	plain := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:"+tcpPort, "--http", "")
	if code := plain.exit(t); code != 1 || !strings.Contains(plain.stderr.String(), "address already in use") {
		t.Errorf("without --reuseport: exit %d, stderr %q; want 1, address already in use", code, plain.stderr.String())
	}
	// with one gone, the other still serves the ports
	a.cmd.Process.Signal(syscall.SIGTERM)
	if code := a.exit(t); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	nc, err := net.DialTimeout("tcp", "127.0.0.1:"+tcpPort, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(nc, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`+"\n")
	buf := make([]byte, 256)
	if n, err := nc.Read(buf); err != nil || !strings.Contains(string(buf[:n]), `"result":19`) {
		t.Errorf("TCP after one process left: %q %v", buf[:n], err)
	}
}

// freePort returns a port that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// testHTTP is an HTTP client that dials for every request, so that each
// shows that a listener still accepts.
type testHTTP struct{ c *http.Client }

func newTestHTTP(t *testing.T) *testHTTP {
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &testHTTP{&http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

func (h *testHTTP) get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := h.c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (h *testHTTP) expect(t *testing.T, url string, status int, body string) {
	t.Helper()
	code, got := h.get(t, url)
	if code != status || !strings.Contains(got, body) {
		if len(got) > 300 {
			got = got[:300] + "..."
		}
		t.Errorf("GET %s: %d %q, want %d with %q", url, code, got, status, body)
	}
}

// await polls url until it answers status.
func (h *testHTTP) await(t *testing.T, url string, status int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _ := h.get(t, url)
		if code == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: still %d, want %d", url, code, status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (h *testHTTP) post(t *testing.T, url, msg, want string) {
	t.Helper()
	resp, err := h.c.Post(url, "application/json", strings.NewReader(msg))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
		t.Errorf("POST %s %s: %d %s, want 200 with %s", url, msg, resp.StatusCode, b, want)
	}
}

// TestBinaryTraceStdout: --trace stdout writes one span per call to stdout
// (a line of JSON each, flushed at exit), named after the method, with the
// JSON-RPC attributes.
func TestBinaryTraceStdout(t *testing.T) {
	var stdout syncBuffer
	p := startBinary(t, nil, &stdout, "serve", "--tcp", "", "--http", "127.0.0.1:0", "--trace", "stdout")
	addr := p.stderr.listening(t, "http")["http"]
	newTestHTTP(t).post(t, "http://"+addr, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":7}`, `"result":19`)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.exit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	out := stdout.String()
	for _, want := range []string{`{"Name":"subtract",`, `{"Key":"rpc.method","Value":{"Type":"STRING","Value":"subtract"}}`, `{"Key":"rpc.jsonrpc.request_id","Value":{"Type":"STRING","Value":"7"}}`, `"service.name"`} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout without %s:\n%s", want, out)
		}
	}
}

// TestBinaryTraceOTLP: --trace with an http:// URL without a path (and with
// host:port) posts the spans to /v1/traces as OTLP protobuf.
func TestBinaryTraceOTLP(t *testing.T) {
	for _, form := range []string{"url", "hostport"} {
		t.Run(form, func(t *testing.T) {
			got := make(chan string, 16)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			collector := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				select {
				case got <- r.Method + " " + r.URL.Path + " " + r.Header.Get("Content-Type") + " " + string(b):
				default:
				}
			})}
			go collector.Serve(ln)
			defer collector.Close()
			target := ln.Addr().String()
			if form == "url" {
				target = "http://" + target
			}
			p := startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "127.0.0.1:0", "--trace", target)
			addr := p.stderr.listening(t, "http")["http"]
			newTestHTTP(t).post(t, "http://"+addr, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":7}`, `"result":19`)
			p.cmd.Process.Signal(syscall.SIGTERM)
			if code := p.exit(t); code != 0 {
				t.Fatalf("exit %d", code)
			}
			select {
			case req := <-got:
				if !strings.HasPrefix(req, "POST /v1/traces application/x-protobuf ") || !strings.Contains(req, "subtract") {
					t.Errorf("the collector got %q", req)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no spans reached the collector")
			}
		})
	}
}

// TestBinaryAccessLog: --log-level debug logs a record per call;
// --slow-call warns about calls over the threshold (at any level).
func TestBinaryAccessLog(t *testing.T) {
	f := func(args []string, calls []string, want, notWant []string) {
		t.Helper()
		p := startBinary(t, nil, nil, append([]string{"serve", "--tcp", "", "--http", "127.0.0.1:0"}, args...)...)
		addr := p.stderr.listening(t, "http")["http"]
		c := newTestHTTP(t)
		for _, call := range calls {
			c.post(t, "http://"+addr, call, `"result"`)
		}
		p.cmd.Process.Signal(syscall.SIGTERM)
		if code := p.exit(t); code != 0 {
			t.Fatalf("exit %d", code)
		}
		log := p.stderr.String()
		for _, w := range want {
			if !strings.Contains(log, w) {
				t.Errorf("%q: log without %q:\n%s", args, w, log)
			}
		}
		for _, w := range notWant {
			if strings.Contains(log, w) {
				t.Errorf("%q: log with %q:\n%s", args, w, log)
			}
		}
	}
	subtract := `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":7}`
	sleep := `{"jsonrpc":"2.0","method":"sleep","params":[60],"id":8}`
	f([]string{"--log-level", "debug"}, []string{subtract}, []string{`level=DEBUG msg="jetrpc call" method=subtract id=7`, "transport=http"}, nil)
	f(nil, []string{subtract}, nil, []string{"jetrpc call"})
	f([]string{"--slow-call", "30ms"}, []string{subtract, sleep},
		[]string{`level=WARN msg="jetrpc slow call" method=sleep id=8`}, []string{"method=subtract", `msg="jetrpc call"`})
}
