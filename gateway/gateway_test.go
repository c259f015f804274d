package gateway_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/gateway"
	"github.com/jetrpc/jetrpc/netserver"
)

// TestForwardIDs: every kind of id comes back byte for byte, results and
// upstream errors pass through.
func TestForwardIDs(t *testing.T) {
	u := newUpstream(t, "a")
	e := engine(t, newGateway(t, &gateway.Options{Default: group(t, "default", nil, u)}))
	f := func(in, want string) {
		t.Helper()
		if got := string(e.Process(nil, []byte(in))); got != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
	for _, id := range []string{`1`, `9007199254740993`, `123456789012345678901234567890`, `1e3`, `-0`, `1.5`,
		`"a\u0041"`, `"\"\\/\b\f\n\r\t"`, `"é😀"`, `null`, `""`} {
		f(`{"jsonrpc":"2.0","id":`+id+`,"method":"subtract","params":[42,23]}`,
			`{"jsonrpc":"2.0","id":`+id+`,"result":19}`)
	}
	f(`{"id":"x","jsonrpc":"2.0","params":{"minuend":5,"subtrahend":2},"method":"subtract"}`,
		`{"jsonrpc":"2.0","id":"x","result":3}`)
	f(`{"jsonrpc":"2.0","id":7,"method":"echo","params":[{"a" : [1, 2.50, "\u00e9"]}]}`,
		`{"jsonrpc":"2.0","id":7,"result":[{"a" : [1, 2.50, "\u00e9"]}]}`)
	// An upstream's error keeps its code, message and data.
	f(`{"jsonrpc":"2.0","id":8,"method":"fail","params":{"code":3,"message":"execution reverted","data":"0x08c379a0"}}`,
		`{"jsonrpc":"2.0","id":8,"error":{"code":3,"message":"execution reverted","data":"0x08c379a0"}}`)
	f(`{"jsonrpc":"2.0","id":9,"method":"nope"}`,
		`{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found"}}`)
	// Notifications are forwarded and answered nothing.
	f(`{"jsonrpc":"2.0","method":"count"}`, ``)
	deadline := time.Now().Add(2 * time.Second)
	for u.count("count") != 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := u.count("count"); n != 1 {
		t.Errorf("the notification reached the upstream %d times, want 1", n)
	}
	// What the engine answers itself.
	f(`{"jsonrpc":"2.0","id":1,"method":"subtract"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":"invalid JSON at offset 43"}}`)
	f(`{"jsonrpc":"2.0","id":1,"method":5}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request","data":"method must be a string"}}`)
}

// TestRoutes: exact names beat prefixes, the longest prefix wins, a
// method no route allows is -32601.
func TestRoutes(t *testing.T) {
	a, b, c := newUpstream(t, "a"), newUpstream(t, "b"), newUpstream(t, "c")
	ga, gb, gc := group(t, "a", nil, a), group(t, "b", nil, b), group(t, "c", nil, c)
	routes := []gateway.Route{{Match: "debug_*", Group: gb}, {Match: "eth_", Group: gc}, {Match: "eth_chainId", Group: ga},
		{Match: "eth_sendRawTransaction"}}
	f := func(e interface{ Process(dst, msg []byte) []byte }, method, want string) {
		t.Helper()
		got := string(e.Process(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`"}`)))
		if !strings.Contains(got, want) {
			t.Errorf("%s: got %s, want %s", method, got, want)
		}
	}
	e := engine(t, newGateway(t, &gateway.Options{Default: ga, Routes: routes}))
	f(e, "debug_trace", `"result":"b"`)
	f(e, "eth_chainId", `"result":"a"`)
	f(e, "eth_foo", `"code":-32601`) // routed to c, which does not have it
	f(e, "eth_sendRawTransaction", `"code":-32601`)
	f(e, "ping", `"result":"a"`)
	if c.count("eth_foo") != 0 || a.count("eth_sendRawTransaction")+b.count("eth_sendRawTransaction")+c.count("eth_sendRawTransaction") != 0 {
		t.Error("a refused method reached an upstream")
	}
	// Without a default group, only the routes' methods are served.
	e = engine(t, newGateway(t, &gateway.Options{Routes: routes}))
	f(e, "ping", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`)
	f(e, "debug_trace", `"result":"b"`)
	if _, err := gateway.New(&gateway.Options{Routes: []gateway.Route{{Match: "*", Group: ga}}}); err == nil {
		t.Error("a route matching everything was accepted")
	}
}

// TestBatch: a batch with members on two routes, unknown methods,
// notifications and invalid members is answered as one array; each
// group gets one sub-batch.
func TestBatch(t *testing.T) {
	a, b := newUpstream(t, "a"), newUpstream(t, "b")
	e := engine(t, newGateway(t, &gateway.Options{Default: group(t, "a", nil, a),
		Routes: []gateway.Route{{Match: "debug_", Group: group(t, "b", nil, b)}}}))
	f := func(in, want string) {
		t.Helper()
		if got := string(e.Process(nil, []byte(in))); got != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
	f(`[{"jsonrpc":"2.0","id":"1","method":"count"},{"jsonrpc":"2.0","id":2,"method":"debug_trace"},`+
		`{"jsonrpc":"2.0","method":"count"},{"jsonrpc":"2.0","id":3,"method":"nope"},1,`+
		`{"jsonrpc":"2.0","id":4,"method":"subtract","params":[1,2]},{"jsonrpc":"2.0","method":"debug_trace"}]`,
		`[{"jsonrpc":"2.0","id":"1","result":"a"},{"jsonrpc":"2.0","id":2,"result":"b"},`+
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}},`+
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"message must be an object"}},`+
			`{"jsonrpc":"2.0","id":4,"result":-1}]`)
	if a.count("count") != 2 || b.count("debug_trace") != 2 {
		t.Errorf("upstream counts: a count %d (want 2), b debug_trace %d (want 2)", a.count("count"), b.count("debug_trace"))
	}
	// Only notifications: no answer at all.
	f(`[{"jsonrpc":"2.0","method":"count"},{"jsonrpc":"2.0","method":"nope"}]`, ``)
	f(`[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"empty batch"}}`)
}

// TestBatchRouteDown: a member whose route's upstreams are down gets its
// own error; the others their answers.
func TestBatchRouteDown(t *testing.T) {
	a, b := newUpstream(t, "a"), newUpstream(t, "b")
	e := engine(t, newGateway(t, &gateway.Options{Default: group(t, "a", nil, a), Timeout: time.Second,
		Routes: []gateway.Route{{Match: "debug_", Group: group(t, "b", nil, b)}}}))
	b.stop()
	got := string(e.Process(nil, []byte(`[{"jsonrpc":"2.0","id":1,"method":"count"},{"jsonrpc":"2.0","id":2,"method":"debug_trace"}]`)))
	if !strings.HasPrefix(got, `[{"jsonrpc":"2.0","id":1,"result":"a"},{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Upstream unavailable"`) {
		t.Errorf("got %s", got)
	}
}

// TestServe: a gateway served by netserver over TCP, called by a client.
func TestServe(t *testing.T) {
	u := newUpstream(t, "a")
	e := engine(t, newGateway(t, &gateway.Options{Default: group(t, "a", nil, u)}))
	s := netserver.New(e, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Shutdown(context.Background())
	g := group(t, "client", nil, &upstream{addr: ln.Addr().String()})
	for i := range 100 {
		res, err := g.Pool.CallRaw(context.Background(), nil, "subtract", []byte(`[`+itoa(i)+`,1]`))
		if err != nil || string(res) != itoa(i-1) {
			t.Fatalf("call %d: %s %v", i, res, err)
		}
	}
}

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// TestRoutePolicy: a route's rate (with its cost) and its timeout.
func TestRoutePolicy(t *testing.T) {
	u := newUpstream(t, "a")
	g := group(t, "a", nil, u)
	e := engine(t, newGateway(t, &gateway.Options{Default: g, Routes: []gateway.Route{
		{Match: "count", Group: g, Rate: 0.001, Burst: 4, Cost: 2}, // two calls, then none for a long while
		{Match: "sleep", Group: g, Timeout: 50 * time.Millisecond},
	}, MethodTimeouts: map[string]time.Duration{"echo": time.Hour, "subtract": 10 * time.Millisecond}}))
	f := func(in, want string) {
		t.Helper()
		if got := string(e.Process(nil, []byte(in))); got != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
	f(`{"jsonrpc":"2.0","id":1,"method":"count"}`, `{"jsonrpc":"2.0","id":1,"result":"a"}`)
	f(`{"jsonrpc":"2.0","id":2,"method":"count"}`, `{"jsonrpc":"2.0","id":2,"result":"a"}`)
	f(`{"jsonrpc":"2.0","id":3,"method":"count"}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32005,"message":"Limit exceeded"}}`)
	f(`[{"jsonrpc":"2.0","id":4,"method":"count"},{"jsonrpc":"2.0","id":5,"method":"subtract","params":[3,1]}]`,
		`[{"jsonrpc":"2.0","id":4,"error":{"code":-32005,"message":"Limit exceeded"}},{"jsonrpc":"2.0","id":5,"result":2}]`)
	if n := u.count("count"); n != 2 {
		t.Errorf("count reached the upstream %d times, want 2", n)
	}
	start := time.Now()
	f(`{"jsonrpc":"2.0","id":6,"method":"sleep","params":[2000]}`,
		`{"jsonrpc":"2.0","id":6,"error":{"code":-32003,"message":"Request timed out","data":"no upstream answered within 50ms"}}`)
	if d := time.Since(start); d > time.Second {
		t.Errorf("the timed-out call took %v", d)
	}
	f(`{"jsonrpc":"2.0","id":7,"method":"sleep","params":[1]}`, `{"jsonrpc":"2.0","id":7,"result":1}`)
	// A method's own timeout; a sub-batch gets its members' longest.
	f(`{"jsonrpc":"2.0","id":8,"method":"echo","params":[1]}`, `{"jsonrpc":"2.0","id":8,"result":[1]}`)
	f(`[{"jsonrpc":"2.0","id":9,"method":"sleep","params":[100]},{"jsonrpc":"2.0","id":10,"method":"echo","params":[2]}]`,
		`[{"jsonrpc":"2.0","id":9,"result":100},{"jsonrpc":"2.0","id":10,"result":[2]}]`)
}
