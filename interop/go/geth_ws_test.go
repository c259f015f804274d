package interop

// go-ethereum's rpc client over WebSocket (rpc.DialWebsocket, gorilla/websocket
// underneath) against the jetrpc binary's GET /ws on its HTTP listener.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// dialWS connects go-ethereum's WebSocket client to s; t.Cleanup closes it
// (before the server stops: cleanups run last registered first).
func dialWS(t *testing.T, s *server) *rpc.Client {
	t.Helper()
	c, err := rpc.DialWebsocket(ctx(t), "ws://"+s.HTTP+"/ws", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestGethWebsocket runs the checks of TestGeth over WebSocket, then the
// WebSocket ones, all on one client and one server process.
func TestGethWebsocket(t *testing.T) {
	s := startServer(t)
	c := dialWS(t, s)
	t.Run("subtract", func(t *testing.T) { testWSSubtract(t, c) })
	t.Run("fail", func(t *testing.T) { testWSFail(t, c) })
	t.Run("batch", func(t *testing.T) { testWSBatch(t, c) })
	t.Run("concurrent", func(t *testing.T) { testWSConcurrent(t, c) })
	t.Run("cancel", func(t *testing.T) { testWSCancel(t, c) })
	t.Run("large", func(t *testing.T) { testWSLarge(t, c) })
	t.Run("subscribe", func(t *testing.T) { testWSSubscribe(t, c) })
	// The shared suite of geth_test.go.
	t.Run("calls", func(t *testing.T) { testCalls(t, c) })
	t.Run("errors", func(t *testing.T) { testErrors(t, c) })
	t.Run("shared-batch", func(t *testing.T) { testBatch(t, c) })
	t.Run("notify", func(t *testing.T) { testNotify(t, c, false) })
	t.Run("timeout", func(t *testing.T) { testTimeout(t, c) })
	t.Run("still-serving", func(t *testing.T) { testCalls(t, c) })
}

// testWSSubtract calls subtract by position. go-ethereum's client sends
// params only by position (its args become a JSON array), so "by name" is
// the named object as the one positional param, [{"minuend":..}]: the demo
// wants the object itself and answers -32602 Invalid params, which the
// client hands over with code, message and data.
func testWSSubtract(t *testing.T, c *rpc.Client) {
	equal(t, "subtract(42, 23)", call[int](t, c, "subtract", 42, 23), 19)
	equal(t, "subtract(23, 42)", call[int](t, c, "subtract", 23, 42), -19)
	equal(t, "subtract(1.5, 0.25)", call[float64](t, c, "subtract", 1.5, 0.25), 1.25)
	var v any
	err := c.CallContext(ctx(t), &v, "subtract", map[string]any{"minuend": 42, "subtrahend": 23})
	rpcError(t, "subtract([{minuend, subtrahend}])", err, codeInvalidParams, "Invalid params",
		`want [minuend, subtrahend] or {"minuend":a,"subtrahend":b}, both numbers`)
}

// testWSFail: method errors arrive as rpc.Error (code, message) and
// rpc.DataError (data). fail([{...}]) is the demo's -32602 with its
// explanation as data (see testWSSubtract on params by name).
func testWSFail(t *testing.T, c *rpc.Client) {
	var v any
	err := c.CallContext(ctx(t), &v, "fail", map[string]any{"code": -32001, "message": "custom", "data": []int{1}})
	rpcError(t, "fail by position", err, codeInvalidParams, "Invalid params",
		`want {"code":integer,"message":string[,"data":any]}`)
	err = c.CallContext(ctx(t), &v, "no_such_method")
	rpcError(t, "no_such_method", err, codeMethodNotFound, "Method not found", nil)
	equal(t, "subtract after errors", call[int](t, c, "subtract", 2, 1), 1)
}

// testWSBatch: one batch, one text message each way; each element gets its
// own result or error.
func testWSBatch(t *testing.T, c *rpc.Client) {
	var sub, sum, slept int
	var data []any
	b := []rpc.BatchElem{
		{Method: "subtract", Args: []any{42, 23}, Result: &sub},
		{Method: "fail", Args: []any{map[string]any{"code": 7}}, Result: new(any)},
		{Method: "sleep", Args: []any{30}, Result: &slept}, // answered last, matched by id
		{Method: "sum", Args: []any{1, 2, 3, 4}, Result: &sum},
		{Method: "no_such_method", Result: new(any)},
		{Method: "get_data", Result: &data},
	}
	if err := c.BatchCallContext(ctx(t), b); err != nil {
		t.Fatal(err)
	}
	for i, e := range b {
		what := fmt.Sprint("batch[", i, "] ", e.Method)
		switch e.Method {
		case "fail":
			rpcError(t, what, e.Error, codeInvalidParams, "Invalid params", `want {"code":integer,"message":string[,"data":any]}`)
		case "no_such_method":
			rpcError(t, what, e.Error, codeMethodNotFound, "", nil)
		default:
			if e.Error != nil {
				t.Errorf("%s: %v", what, e.Error)
			}
		}
	}
	equal(t, "batch subtract", sub, 19)
	equal(t, "batch sum", sum, 10)
	equal(t, "batch sleep", slept, 30)
	equal(t, "batch get_data", data, []any{"hello", 5.0})
}

// testWSConcurrent: 200 goroutines call at once on the one client (one
// connection); every answer is matched to its call. A few slow calls are
// mixed in: the server answers out of order.
func testWSConcurrent(t *testing.T, c *rpc.Client) {
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			if i%40 == 0 {
				var ms int
				if err := c.CallContext(ctx(t), &ms, "sleep", 20); err != nil || ms != 20 {
					errs <- fmt.Errorf("call %d: sleep(20) = %d, %v", i, ms, err)
				}
				return
			}
			var got int
			if err := c.CallContext(ctx(t), &got, "subtract", i*3, i); err != nil {
				errs <- fmt.Errorf("call %d: %w", i, err)
			} else if got != 2*i {
				errs <- fmt.Errorf("call %d: subtract(%d, %d) = %d", i, i*3, i, got)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// testWSCancel cancels a sleep(5000) in flight: CallContext returns
// context.Canceled at once, and the connection goes on serving (the
// server's late answer has an id the client has forgotten and drops).
func testWSCancel(t *testing.T, c *rpc.Client) {
	cx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	var v any
	err := c.CallContext(cx, &v, "sleep", 5000)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("sleep(5000) cancelled after 100ms: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancelled call returned after %v", d)
	}
	// The server is still sleeping for that call; others are answered now.
	start = time.Now()
	equal(t, "subtract after cancel", call[int](t, c, "subtract", 9, 4), 5)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("call after the cancelled one took %v", d)
	}
}

// testWSLarge echoes a ~1 MB string: the server writes it as one message
// in many frames, which the client puts back together.
func testWSLarge(t *testing.T, c *rpc.Client) {
	big := strings.Repeat("0123456789abcdef", 1<<16)
	got := call[[]string](t, c, "echo", big)
	if len(got) != 1 || got[0] != big {
		t.Errorf("echo of %d bytes: got %d strings", len(big), len(got))
	}
}

// testWSSubscribe uses go-ethereum's own subscription API: Subscribe(ctx,
// "demo", ch, n) calls demo_subscribe [n], takes the id it answers first and
// then delivers the "demo_subscription" notifications carrying that id to
// ch. The server's handler answers with Peer.Reply before it notifies, so
// none arrives before the id (geth drops those). Two subscriptions run at
// once on the one connection; Unsubscribe calls demo_unsubscribe.
func testWSSubscribe(t *testing.T, c *rpc.Client) {
	const n = 50
	type sub struct {
		ch  chan int
		sub *rpc.ClientSubscription
	}
	var subs []sub
	for range 2 {
		ch := make(chan int, n)
		s, err := c.Subscribe(ctx(t), "demo", ch, n)
		if err != nil {
			t.Fatalf("Subscribe: %v", err)
		}
		subs = append(subs, sub{ch, s})
	}
	for i, s := range subs {
		for want := 1; want <= n; want++ {
			select {
			case got := <-s.ch:
				if got != want {
					t.Fatalf("subscription %d: got %d, want %d (in order)", i, got, want)
				}
			case err := <-s.sub.Err():
				t.Fatalf("subscription %d failed after %d values: %v", i, want-1, err)
			case <-time.After(10 * time.Second):
				t.Fatalf("subscription %d: value %d did not arrive", i, want)
			}
		}
		s.sub.Unsubscribe()
	}
	equal(t, "subtract after subscriptions", call[int](t, c, "subtract", 5, 3), 2)
}
