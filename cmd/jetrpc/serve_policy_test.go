package main

// NOTE: jetrpc serve's per-method policy (issue #34, docs/policy.md)
// through the built binary: the methods of each listener (--api,
// --http-api, --ws-api, --tcp-api), --method-cost under --rate-limit,
// --method-timeout, --log-sample, and the errors for bad values.

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
)

// lineConn is an NDJSON connection to the binary's TCP listener.
type lineConn struct {
	t  *testing.T
	nc net.Conn
	rd *bufio.Reader
}

func dialLines(t *testing.T, addr string) *lineConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	return &lineConn{t: t, nc: nc, rd: bufio.NewReader(nc)}
}

func (c *lineConn) send(msg string) {
	c.t.Helper()
	if _, err := io.WriteString(c.nc, msg+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

func (c *lineConn) read() string {
	c.t.Helper()
	l, err := c.rd.ReadString('\n')
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return strings.TrimSuffix(l, "\n")
}

func (c *lineConn) call(msg string) string {
	c.t.Helper()
	c.send(msg)
	return c.read()
}

// wsCall sends msg over a WebSocket and returns the answer.
func wsCall(t *testing.T, ws *websocket.Conn, msg string) string {
	t.Helper()
	ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := ws.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	_, b, err := ws.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBinaryMethodSets: --http-api, --ws-api and --api choose the methods
// of each listener. A hidden method is answered exactly as an unknown one
// and is absent from that listener's rpc.discover (and, for HTTP, from
// GET /openrpc.json); rpc.discover itself is served everywhere.
func TestBinaryMethodSets(t *testing.T) {
	const (
		subtract = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`
		sum      = `{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}`
		unknown  = `{"jsonrpc":"2.0","method":"no_such_method","id":1}`
		discover = `{"jsonrpc":"2.0","method":"rpc.discover","id":1}`
		notFound = `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`
	)
	// listed reports whether an OpenRPC document lists the method.
	listed := func(doc, method string) bool { return strings.Contains(doc, `"name":"`+method+`"`) }
	type listener struct {
		name string
		call func(msg string) string
	}
	// served checks each listener's answers to sum and subtract and which
	// of them its rpc.discover lists.
	served := func(t *testing.T, ls []listener, sumOn, subtractOn map[string]bool) {
		t.Helper()
		for _, l := range ls {
			if got := l.call(subtract); (got == notFound) == subtractOn[l.name] || subtractOn[l.name] && !strings.Contains(got, `"result":19`) {
				t.Errorf("%s: subtract: %s (served: %v)", l.name, got, subtractOn[l.name])
			}
			if got := l.call(sum); (got == notFound) == sumOn[l.name] || sumOn[l.name] && !strings.Contains(got, `"result":3`) {
				t.Errorf("%s: sum: %s (served: %v)", l.name, got, sumOn[l.name])
			}
			if got := l.call(unknown); got != notFound {
				t.Errorf("%s: an unknown method: %s", l.name, got)
			}
			doc := l.call(discover)
			if !strings.Contains(doc, `"result":{"openrpc":`) {
				t.Fatalf("%s: rpc.discover: %.200s", l.name, doc)
			}
			if listed(doc, "subtract") != subtractOn[l.name] || listed(doc, "sum") != sumOn[l.name] {
				t.Errorf("%s: rpc.discover lists subtract %v, sum %v; want %v, %v", l.name,
					listed(doc, "subtract"), listed(doc, "sum"), subtractOn[l.name], sumOn[l.name])
			}
		}
	}
	start := func(t *testing.T, args ...string) ([]listener, string) {
		t.Helper()
		p := startBinary(t, nil, nil, append([]string{"serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0"}, args...)...)
		addrs := p.stderr.listening(t, "tcp", "http")
		url := "http://" + addrs["http"] + "/"
		d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
		ws, _, err := d.Dial("ws://"+addrs["http"]+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.Close() })
		tcp := dialLines(t, addrs["tcp"])
		return []listener{
			{"http", func(msg string) string {
				status, _, body := httpPost(t, url, msg)
				if status != http.StatusOK {
					t.Errorf("POST %s: %d %s", msg, status, body)
				}
				return body
			}},
			{"ws", func(msg string) string { return wsCall(t, ws, msg) }},
			{"tcp", tcp.call},
		}, url
	}
	all := map[string]bool{"http": true, "ws": true, "tcp": true}

	t.Run("http-api", func(t *testing.T) {
		ls, url := start(t, "--http-api", "eth_,subtract")
		served(t, ls, map[string]bool{"ws": true, "tcp": true}, all)
		_, doc := newTestHTTP(t).get(t, url+"openrpc.json")
		if !listed(doc, "subtract") || listed(doc, "sum") || listed(doc, "echo") {
			t.Errorf("GET /openrpc.json of --http-api eth_,subtract: %.300s", doc)
		}
	})
	t.Run("ws-api", func(t *testing.T) {
		ls, url := start(t, "--ws-api", "eth_,subtract")
		served(t, ls, map[string]bool{"http": true, "tcp": true}, all)
		if _, doc := newTestHTTP(t).get(t, url+"openrpc.json"); !listed(doc, "sum") {
			t.Errorf("GET /openrpc.json without --http-api lacks sum: %.300s", doc)
		}
	})
	t.Run("api", func(t *testing.T) {
		// --api for every listener; --tcp-api overrides it for TCP.
		ls, _ := start(t, "--api", "subtract", "--tcp-api", "sum,subtract")
		served(t, ls, map[string]bool{"tcp": true}, all)
	})
}

// TestBinaryMethodCost: with --method-cost sleep=10, a sleep call takes
// what ten cheap calls take from the client's bucket (--rate-burst 100,
// refilled too slowly to matter during the test), over TCP and HTTP alike
// (one bucket per client for every listener).
func TestBinaryMethodCost(t *testing.T) {
	const (
		cheap   = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`
		sleep   = `{"jsonrpc":"2.0","method":"sleep","params":[0],"id":2}`
		limited = `"error":{"code":-32005,"message":"Limit exceeded"`
	)
	start := func(t *testing.T) (*lineConn, string) {
		p := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0",
			"--rate-limit", "0.001", "--rate-burst", "100", "--method-cost", "sleep=10")
		addrs := p.stderr.listening(t, "tcp", "http")
		return dialLines(t, addrs["tcp"]), "http://" + addrs["http"] + "/"
	}
	t.Run("sleep", func(t *testing.T) {
		c, url := start(t)
		for i := range 10 {
			if got := c.call(sleep); got != `{"jsonrpc":"2.0","id":2,"result":0}` {
				t.Fatalf("sleep call %d: %s", i+1, got)
			}
		}
		if got := c.call(cheap); !strings.Contains(got, limited) {
			t.Errorf("a cheap call after ten sleep calls: %s, want %s", got, limited)
		}
		if status, _, body := httpPost(t, url, cheap); status != http.StatusTooManyRequests {
			t.Errorf("HTTP after ten sleep calls over TCP: %d %s, want 429", status, body)
		}
	})
	t.Run("cheap", func(t *testing.T) {
		c, url := start(t)
		for i := range 99 {
			if got := c.call(cheap); !strings.Contains(got, `"result":19`) {
				t.Fatalf("cheap call %d: %s", i+1, got)
			}
		}
		// One left: not enough for a sleep call (over HTTP, priced before
		// it runs), enough for a cheap one.
		if status, _, body := httpPost(t, url, sleep); status != http.StatusTooManyRequests {
			t.Errorf("a sleep call with 1 left: %d %s, want 429", status, body)
		}
		if got := c.call(cheap); !strings.Contains(got, `"result":19`) {
			t.Errorf("the 100th cheap call: %s", got)
		}
		if got := c.call(cheap); !strings.Contains(got, limited) {
			t.Errorf("the 101st cheap call: %s, want %s", got, limited)
		}
	})
	t.Run("batch", func(t *testing.T) {
		// A batch takes the sum of its members': 9 sleeps and 10 cheap
		// calls are the whole bucket.
		c, _ := start(t)
		batch := "[" + strings.Repeat(sleep+",", 9) + strings.Repeat(cheap+",", 9) + cheap + "]"
		if got := c.call(batch); strings.Contains(got, "-32005") || strings.Count(got, `"result"`) != 19 {
			t.Errorf("a batch of the whole bucket: %s", got)
		}
		if got := c.call(cheap); !strings.Contains(got, limited) {
			t.Errorf("a cheap call after the batch: %s, want %s", got, limited)
		}
	})
}

// TestBinaryMethodTimeout: --method-timeout sleep=100ms bounds sleep by
// its own timeout while another method (callback, whose client answers
// late) runs longer than that under --call-timeout, and is cut by it.
func TestBinaryMethodTimeout(t *testing.T) {
	p := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "",
		"--call-timeout", "1s", "--method-timeout", "sleep=100ms")
	c := dialLines(t, p.stderr.listening(t, "tcp")["tcp"])

	start := time.Now()
	got := c.call(`{"jsonrpc":"2.0","method":"sleep","params":[5000],"id":1}`)
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"Request timed out","data":"call took longer than 100ms"}}`
	if got != want || time.Since(start) > 900*time.Millisecond {
		t.Errorf("sleep over its timeout: %s after %v, want %s", got, time.Since(start), want)
	}
	if got := c.call(`{"jsonrpc":"2.0","method":"sleep","params":[20],"id":2}`); got != `{"jsonrpc":"2.0","id":2,"result":20}` {
		t.Errorf("sleep under its timeout: %s", got)
	}

	// callback runs 300ms (its client answers late): over sleep's bound,
	// under the server-wide one.
	c.send(`{"jsonrpc":"2.0","method":"callback","params":["client.echo",[7]],"id":3}`)
	var req struct{ ID json.RawMessage }
	line := c.read()
	if err := json.Unmarshal([]byte(line), &req); err != nil || !strings.Contains(line, `"method":"client.echo"`) {
		t.Fatalf("the server's call: %s", line)
	}
	id := string(req.ID)
	time.Sleep(300 * time.Millisecond)
	if got := c.call(`{"jsonrpc":"2.0","id":` + id + `,"result":[7]}`); got != `{"jsonrpc":"2.0","id":3,"result":[7]}` {
		t.Errorf("callback answered after 300ms: %s", got)
	}

	// Unanswered, callback is cut by --call-timeout.
	start = time.Now()
	c.send(`{"jsonrpc":"2.0","method":"callback","params":["client.echo",[8]],"id":4}`)
	if req := c.read(); !strings.Contains(req, `"method":"client.echo"`) {
		t.Fatalf("the server's call: %s", req)
	}
	got = c.read()
	want = `{"jsonrpc":"2.0","id":4,"error":{"code":-32003,"message":"Request timed out","data":"call took longer than 1s"}}`
	if got != want || time.Since(start) < time.Second {
		t.Errorf("an unanswered callback: %s after %v, want %s after 1s", got, time.Since(start), want)
	}
}

// TestBinaryLogSample: --log-sample 10 logs 1 in 10 ordinary calls (per
// method), every error and every slow call (--slow-call).
func TestBinaryLogSample(t *testing.T) {
	p := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "",
		"--log-sample", "10", "--slow-call", "200ms")
	c := dialLines(t, p.stderr.listening(t, "tcp")["tcp"])
	for i := range 35 { // logged: the 1st, 11th, 21st and 31st
		if got := c.call(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":` + strconv.Itoa(i) + `}`); !strings.Contains(got, `"result":19`) {
			t.Fatalf("subtract: %s", got)
		}
	}
	for range 5 {
		if got := c.call(`{"jsonrpc":"2.0","method":"fail","params":{"code":-32000,"message":"no"},"id":"f"}`); !strings.Contains(got, `"code":-32000`) {
			t.Fatalf("fail: %s", got)
		}
	}
	for range 3 {
		if got := c.call(`{"jsonrpc":"2.0","method":"sleep","params":[250],"id":"s"}`); !strings.Contains(got, `"result":250`) {
			t.Fatalf("sleep: %s", got)
		}
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.exit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	count := map[string]int{}
	for line := range strings.Lines(p.stderr.String()) {
		switch {
		case strings.Contains(line, `level=INFO msg="jetrpc call" method=subtract `):
			count["subtract"]++
		case strings.Contains(line, `level=INFO msg="jetrpc call" method=fail `) && strings.Contains(line, "code=-32000"):
			count["fail"]++
		case strings.Contains(line, `level=WARN msg="jetrpc slow call" method=sleep `):
			count["sleep"]++
		case strings.Contains(line, "jetrpc call") || strings.Contains(line, "jetrpc slow call"):
			count["other"]++
		}
	}
	if count["subtract"] != 4 || count["fail"] != 5 || count["sleep"] != 3 || count["other"] != 0 {
		t.Errorf("log lines %v, want subtract 4 (1 in 10 of 35), fail 5, sleep 3 (slow), other 0:\n%s", count, p.stderr.String())
	}
}

// TestServePolicyFlags: bad policy values are a usage error (exit 2)
// naming the flag and the value.
func TestServePolicyFlags(t *testing.T) {
	cfg, err := parseServe([]string{"--method-timeout", "sleep=50ms", "--method-timeout", "echo=2s",
		"--method-cost", "sleep=10", "--log-sample", "100", "--http-api", "eth_"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.policy; p.timeouts["sleep"] != 50*time.Millisecond || p.timeouts["echo"] != 2*time.Second ||
		p.costs["sleep"] != 10 || p.sample != 100 || p.httpAPI != "eth_" {
		t.Errorf("policy %+v", p)
	}
	// An empty per-listener list is the default: --api's.
	cfg, err = parseServe([]string{"--api", "subtract", "--http-api", "", "--ws-api", "sum"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	e := dispatch.New(nil)
	defer e.Close()
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	sets := cfg.policy.methodSets(e)
	if h, ws := sets[netserver.HTTP], sets[netserver.WS]; !h.Has("subtract") || h.Has("sum") || !ws.Has("sum") || ws.Has("subtract") ||
		sets[netserver.TCP].Has("sum") {
		t.Errorf("--api subtract --http-api '' --ws-api sum: %v", sets)
	}

	bad := func(want string, args ...string) {
		t.Helper()
		var stderr strings.Builder
		code := run(t.Context(), append([]string{"serve", "--tcp", "", "--http", ""}, args...), strings.NewReader(""), io.Discard, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", args, code, stderr.String(), want)
		}
	}
	bad(`--method-cost "bad=x": strconv.Atoi: parsing "x": invalid syntax`, "--method-cost", "bad=x")
	bad(`--method-cost "sleep=0": want a whole number of at least 1`, "--method-cost", "sleep=0")
	bad(`--method-cost "sleep": want NAME=VALUE`, "--method-cost", "sleep")
	bad(`--method-timeout "x=1": time: missing unit in duration "1"`, "--method-timeout", "x=1")
	bad(`--method-timeout "sleep=-1s": want a positive duration`, "--method-timeout", "sleep=-1s")
	bad(`--method-timeout "=1s": want NAME=VALUE`, "--method-timeout", "=1s")
	bad(`--log-sample -1: must not be negative`, "--log-sample", "-1")
	bad(`--http-api ",": names no method`, "--http-api", ",")
	bad(`--method-timeout sleeep: no such method`, "--method-timeout", "sleeep=1s")
	bad(`--method-cost sleeep: no such method`, "--method-cost", "sleeep=3")
}
