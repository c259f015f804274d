package netserver

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
)

// wire is one client connection of any transport, as the peer tests see it.
type wire struct {
	send  func(msg string)
	recv  func() []byte
	close func()
}

func clientWire(c *client) wire {
	return wire{send: c.send, recv: c.recv, close: func() {
		if cl, ok := c.w.(interface{ Close() error }); ok {
			cl.Close()
		}
	}}
}

func wsWire(t *testing.T, c *websocket.Conn) wire {
	return wire{
		send:  func(msg string) { wsSend(t, c, msg) },
		recv:  func() []byte { return wsRecv(t, c) },
		close: func() { c.Close() },
	}
}

// peerMethods are test methods that use the peer from the reading
// goroutine (Inline) and from a worker.
var peerMethods = []engineSetup{
	withMethod(dispatch.Method{Name: "inline_notify", Inline: true, Handler: dispatch.HandlerFunc(
		func(ctx context.Context, params, dst []byte) ([]byte, error) {
			return append(dst, "true"...), dispatch.PeerOf(ctx).NotifyRaw(ctx, "hello", params)
		})}),
	withMethod(dispatch.Method{Name: "inline_call", Inline: true, Handler: dispatch.HandlerFunc(
		func(ctx context.Context, _, dst []byte) ([]byte, error) {
			return dispatch.PeerOf(ctx).CallRaw(ctx, dst, "anything", nil)
		})}),
}

// message is any message from the server.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func parseMessage(t *testing.T, b []byte) message {
	t.Helper()
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("message %q: %v", b, err)
	}
	return m
}

// checkPeer runs the server-to-client scenarios over w.
func checkPeer(t *testing.T, w wire) {
	// subscribe: n notifications, written before the call's response.
	w.send(`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":[3]}`)
	for i := 1; i <= 3; i++ {
		m := parseMessage(t, w.recv())
		want := `{"subscription":1,"result":` + strconv.Itoa(i) + `}`
		if m.Method != "subscription" || m.ID != nil || string(m.Params) != want {
			t.Fatalf("notification %d: %+v, want params %s", i, m, want)
		}
	}
	expectResult(t, w.recv(), "1", "3")

	// demo_subscribe: the id first (Peer.Reply), then the notifications.
	w.send(`{"jsonrpc":"2.0","id":9,"method":"demo_subscribe","params":[2]}`)
	r := parseMessage(t, w.recv())
	if string(r.ID) != "9" || len(r.Result) < 4 || r.Result[0] != '"' {
		t.Fatalf("demo_subscribe answered %+v, want a subscription id first", r)
	}
	for i := 1; i <= 2; i++ {
		m := parseMessage(t, w.recv())
		want := `{"subscription":` + string(r.Result) + `,"result":` + strconv.Itoa(i) + `}`
		if m.Method != "demo_subscription" || string(m.Params) != want {
			t.Fatalf("notification %d: %+v, want params %s", i, m, want)
		}
	}

	// callback: the server calls the client and returns its answer.
	w.send(`{"jsonrpc":"2.0","id":"a","method":"callback","params":["client.double",[21]]}`)
	req := parseMessage(t, w.recv())
	if req.Method != "client.double" || string(req.Params) != "[21]" || req.ID == nil {
		t.Fatalf("server's call: %+v", req)
	}
	w.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":42}`)
	expectResult(t, w.recv(), `"a"`, "42")

	// The client's error comes back with code, message and data.
	w.send(`{"jsonrpc":"2.0","id":2,"method":"callback","params":{"method":"client.fail"}}`)
	req = parseMessage(t, w.recv())
	if req.Params != nil {
		t.Fatalf("params sent though none given: %s", req.Params)
	}
	w.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-5,"message":"nope","data":{"why":1}}}`)
	if data := expectError(t, w.recv(), "2", -5); data != `{"why":1}` {
		t.Errorf("error data %s", data)
	}

	// Inline handlers may notify but not call (that would deadlock).
	w.send(`{"jsonrpc":"2.0","id":3,"method":"inline_notify","params":{"x":1}}`)
	if m := parseMessage(t, w.recv()); m.Method != "hello" || string(m.Params) != `{"x":1}` {
		t.Fatalf("inline notification: %+v", m)
	}
	expectResult(t, w.recv(), "3", "true")
	w.send(`{"jsonrpc":"2.0","id":4,"method":"inline_call"}`)
	expectError(t, w.recv(), "4", -32603)

	// A response nobody waits for is dropped, not answered.
	w.send(`{"jsonrpc":"2.0","id":12345,"result":0}`)
	w.send(`{"jsonrpc":"2.0","id":5,"method":"subtract","params":[2,1]}`)
	expectResult(t, w.recv(), "5", "1")

	// The client goes away while the server waits for its answer: the
	// handler's call fails and nothing hangs (the cleanup checks
	// goroutines).
	w.send(`{"jsonrpc":"2.0","id":6,"method":"callback","params":["client.slow"]}`)
	if m := parseMessage(t, w.recv()); m.Method != "client.slow" {
		t.Fatalf("server's call: %+v", m)
	}
	w.close()
}

func TestPeerTCP(t *testing.T) {
	for _, kind := range append(framings, frame.Auto) {
		t.Run(kind.String(), func(t *testing.T) {
			ts := startServer(t, &Options{Framing: kind}, peerMethods...)
			send := kind
			if kind == frame.Auto {
				send = frame.Header
			}
			checkPeer(t, clientWire(ts.dial(t, send)))
			waitFor(t, "the connection to end", func() bool { return ts.openConns() == 0 })
		})
	}
}

func TestPeerStdio(t *testing.T) {
	for _, kind := range []frame.Kind{frame.NDJSON, frame.Header} {
		t.Run(kind.String(), func(t *testing.T) {
			_, c := startStdio(t, &Options{Framing: kind}, kind, peerMethods...)
			w := clientWire(c)
			w.close = func() {} // the cleanup closes stdin
			checkPeer(t, w)
		})
	}
}

func TestPeerWS(t *testing.T) {
	s, url := startWS(t, nil, peerMethods...)
	checkPeer(t, wsWire(t, dialWS(t, url)))
	waitFor(t, "the connection to end", func() bool { return s.openWS() == 0 })
}

// TestPeerBackpressure: a subscription larger than MaxPending reaches a
// client that reads slowly, complete and in order, while the bytes waiting
// to be written stay within the bound (plus one message).
func TestPeerBackpressure(t *testing.T) {
	const maxPending = 4 << 10
	var peak atomic.Int64
	checkGoroutines(t)
	s := newServer(t, &Options{MaxPending: maxPending})
	s.lim.testHookPending = func(p int64) {
		for {
			old := peak.Load()
			if p <= old || peak.CompareAndSwap(old, p) {
				return
			}
		}
	}
	ts := serveOn(t, s)
	c := ts.dial(t, frame.NDJSON)
	const n = 20000 // ~1.2 MB: more than the socket buffers hold
	c.send(`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"count":` + strconv.Itoa(n) + `}}`)
	// Not reading for a while: the kernel's buffers fill and the handler
	// waits (in its own write, or for the writer when the output is full).
	time.Sleep(300 * time.Millisecond)
	for i := 1; i <= n; i++ {
		m := parseMessage(t, c.recv())
		if want := `{"subscription":1,"result":` + strconv.Itoa(i) + `}`; string(m.Params) != want {
			t.Fatalf("notification %d: %s", i, m.Params)
		}
	}
	expectResult(t, c.recv(), "1", strconv.Itoa(n))
	if p := peak.Load(); p > maxPending+256 {
		t.Errorf("pending peaked at %d bytes, bound %d", p, maxPending)
	}
	t.Logf("pending peaked at %d bytes for a %d-byte bound", peak.Load(), maxPending)
}

// TestPeerSubscribeErrors: bad params, and subscribe over a transport that
// cannot notify (Process without a server).
func TestPeerSubscribeErrors(t *testing.T) {
	e := newEngine(t)
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":[-1]}`,
		`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":[100001]}`,
		`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"n":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"callback","params":[1]}`,
		`{"jsonrpc":"2.0","id":1,"method":"callback","params":["m",5]}`,
	} {
		expectError(t, e.Process(nil, []byte(in)), "1", -32602)
	}
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":[1]}`,
		`{"jsonrpc":"2.0","id":1,"method":"callback","params":["m"]}`,
	} {
		expectError(t, e.Process(nil, []byte(in)), "1", -32004)
	}
}

// TestPeerSendOwnMessageOverMaxPending: a handler whose own message is
// larger than MaxPending can still notify its peer (the task's message
// counts against the bound where it is read, not against the handler's
// sends: it would wait for itself).
func TestPeerSendOwnMessageOverMaxPending(t *testing.T) {
	checkGoroutines(t)
	s := newServer(t, &Options{MaxPending: 4 << 10})
	ts := serveOn(t, s)
	c := ts.dial(t, frame.NDJSON)
	pad := strings.Repeat("x", 6<<10)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"count":3},"_meta":{"pad":"` + pad + `"}}`)
	for i := 1; i <= 3; i++ {
		m := parseMessage(t, c.recv())
		if want := `{"subscription":1,"result":` + strconv.Itoa(i) + `}`; string(m.Params) != want {
			t.Fatalf("notification %d: %s", i, m.Params)
		}
	}
	expectResult(t, c.recv(), "1", "3")
}
