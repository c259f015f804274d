// Package servertest holds the helpers that the tests of netserver and of
// netserver/nethttp share: a demo engine, goroutine and response checks,
// and a WebSocket client.
package servertest

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/dispatch"
)

// Timeout bounds every wait of a test.
const Timeout = 10 * time.Second

// Quiet is a logger that discards everything.
var Quiet = slog.New(slog.DiscardHandler)

// CheckGoroutines fails the test if, after its cleanups, more goroutines run
// than before it started. Call it first, so that its cleanup runs last.
func CheckGoroutines(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("%d goroutines before, %d after shutdown:\n%s", before, n, buf)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// EngineSetup adjusts a test engine before it freezes.
type EngineSetup func(e *dispatch.Engine) error

// NewEngine returns an engine with the options opts (Logger: Quiet) and
// setup applied in order; the tests' helpers put the demo methods
// (bench/demo, which only tests may import) first. The test's cleanup
// closes it.
func NewEngine(t testing.TB, opts dispatch.Options, setup ...EngineSetup) *dispatch.Engine {
	t.Helper()
	opts.Logger = Quiet
	e := dispatch.New(&opts)
	for _, f := range setup {
		if err := f(e); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(e.Close)
	return e
}

// WithMethod registers m.
func WithMethod(m dispatch.Method) EngineSetup {
	return func(e *dispatch.Engine) error { return e.RegisterMethod(m) }
}

// Response is a decoded response.
type Response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// DecodeResponse decodes b, failing the test if it is not JSON.
func DecodeResponse(t testing.TB, b []byte) Response {
	t.Helper()
	var r Response
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("Response %q: %v", b, err)
	}
	return r
}

// ExpectResult checks a response's id and result.
func ExpectResult(t testing.TB, b []byte, id, result string) {
	t.Helper()
	r := DecodeResponse(t, b)
	if string(r.ID) != id || r.Error != nil || string(r.Result) != result {
		t.Fatalf("got %s, want id %s result %s", b, id, result)
	}
}

// ExpectError checks a response's id and error code and returns its data.
func ExpectError(t testing.TB, b []byte, id string, code int) string {
	t.Helper()
	r := DecodeResponse(t, b)
	if string(r.ID) != id || r.Error == nil || r.Error.Code != code {
		t.Fatalf("got %s, want id %s error %d", b, id, code)
	}
	return string(r.Error.Data)
}

// WaitFor polls cond until it holds or the test times out.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// DialWS opens a client connection, closed by the test's cleanup.
func DialWS(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: Timeout}
	c, resp, err := d.Dial(url, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	resp.Body.Close()
	t.Cleanup(func() { c.Close() })
	return c
}

// WSSend sends msg as a text message.
func WSSend(t testing.TB, c *websocket.Conn, msg string) {
	t.Helper()
	c.SetWriteDeadline(time.Now().Add(Timeout))
	if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// WSRecv reads the next message, which must be text.
func WSRecv(t testing.TB, c *websocket.Conn) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(Timeout))
	typ, b, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.TextMessage {
		t.Fatalf("message type %d, want text", typ)
	}
	return b
}

// WSExpectClose reads until the connection ends and checks the close code.
func WSExpectClose(t *testing.T, c *websocket.Conn, code int) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(Timeout))
	for {
		_, b, err := c.ReadMessage()
		if err == nil {
			t.Logf("message before close: %.100s", b)
			continue
		}
		if !websocket.IsCloseError(err, code) {
			t.Fatalf("got %v, want close %d", err, code)
		}
		return
	}
}

// Server is an HTTP server under test (nethttp.HTTPServer).
type Server interface {
	Serve(ln net.Listener) error
	Shutdown(ctx context.Context) error
}

// Serve serves s on a loopback port and returns its address. The cleanup
// shuts it down and checks that Serve returned closed.
func Serve(t *testing.T, s Server, closed error) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), Timeout)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		select {
		case err := <-served:
			if err != closed {
				t.Errorf("Serve returned %v, want %v", err, closed)
			}
		case <-time.After(Timeout):
			t.Error("Serve did not return after Shutdown")
		}
	})
	return ln.Addr().String()
}

// RecordMethod is a blocking (non-inline), ordered method that records the
// params it gets.
func RecordMethod(mu *sync.Mutex, got *[]string) dispatch.Method {
	return dispatch.Method{Name: "record", Handler: dispatch.HandlerFunc(
		func(_ context.Context, params, dst []byte) ([]byte, error) {
			mu.Lock()
			*got = append(*got, string(params))
			mu.Unlock()
			return dst, nil
		})}
}

// CountStarts counts the calls of method that have started.
func CountStarts(method string, n *atomic.Int32) EngineSetup {
	return func(e *dispatch.Engine) error {
		return e.Use(func(name string, next dispatch.Handler) dispatch.Handler {
			if name != method {
				return next
			}
			return dispatch.HandlerFunc(func(ctx context.Context, params, dst []byte) ([]byte, error) {
				n.Add(1)
				return next.ServeRPC(ctx, params, dst)
			})
		})
	}
}

// Subtract is a call of the demo engine's subtract, answered 19.
const Subtract = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`
