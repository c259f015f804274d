package netserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/internal/vectors"
	"github.com/valyala/fasthttp"
)

const wsSubtract = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`

var warmWS sync.Once

// startWS serves a demo engine with an HTTPServer on loopback and returns it
// and its WebSocket URL. The cleanup shuts it down, checks that Serve
// returned ErrServerClosed and that no goroutine is left.
func startWS(t *testing.T, opts *Options, setup ...engineSetup) (*HTTPServer, string) {
	t.Helper()
	warmWS.Do(func() { // fasthttp's process-wide date refresher
		var h fasthttp.ResponseHeader
		h.AppendBytes(nil)
	})
	checkGoroutines(t)
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = quiet
	}
	s := NewHTTP(newEngine(t, setup...), &o)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		select {
		case err := <-served:
			if err != ErrServerClosed {
				t.Errorf("Serve returned %v, want ErrServerClosed", err)
			}
		case <-time.After(testTimeout):
			t.Error("Serve did not return after Shutdown")
		}
	})
	return s, "ws://" + ln.Addr().String() + "/ws"
}

// dialWS opens a client connection, closed by the test's cleanup.
func dialWS(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: testTimeout}
	c, resp, err := d.Dial(url, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	resp.Body.Close()
	t.Cleanup(func() { c.Close() })
	return c
}

func wsSend(t testing.TB, c *websocket.Conn, msg string) {
	t.Helper()
	c.SetWriteDeadline(time.Now().Add(testTimeout))
	if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func wsRecv(t testing.TB, c *websocket.Conn) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(testTimeout))
	typ, b, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.TextMessage {
		t.Fatalf("message type %d, want text", typ)
	}
	return b
}

// wsExpectClose reads until the connection ends and checks the close code.
func wsExpectClose(t *testing.T, c *websocket.Conn, code int) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(testTimeout))
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

func TestWSVectors(t *testing.T) {
	_, url := startWS(t, nil)
	c := dialWS(t, url)
	vs, err := vectors.Spec()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		wsSend(t, c, v.Request)
		if v.NoResponse() {
			wsSend(t, c, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"next"}`)
			expectResult(t, wsRecv(t, c), `"next"`, "19")
			continue
		}
		if err := v.Check(wsRecv(t, c)); err != nil {
			t.Errorf("%s: %v", v.Name, err)
		}
	}
}

func TestWSPipeline(t *testing.T) {
	_, url := startWS(t, nil)
	c := dialWS(t, url)
	const n = 1000
	go func() {
		for i := range n {
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":"subtract","params":[%d,1],"id":%d}`, i+1, i)
			if i%2 == 1 { // on a worker: answered out of order
				msg = fmt.Sprintf(`{"jsonrpc":"2.0","method":"sleep","params":[%d],"id":%d}`, i%3, i)
			}
			c.SetWriteDeadline(time.Now().Add(testTimeout))
			if c.WriteMessage(websocket.TextMessage, []byte(msg)) != nil {
				return
			}
		}
	}()
	seen := make([]bool, n)
	for range n {
		r := decodeResponse(t, wsRecv(t, c))
		var id int
		if err := json.Unmarshal(r.ID, &id); err != nil || id < 0 || id >= n || seen[id] {
			t.Fatalf("bad or repeated id %s", r.ID)
		}
		seen[id] = true
		want := fmt.Sprint(id)
		if id%2 == 1 {
			want = fmt.Sprint(id % 3)
		}
		if string(r.Result) != want {
			t.Fatalf("id %d: result %s, want %s", id, r.Result, want)
		}
	}
}

func TestWSSlowCallDoesNotBlock(t *testing.T) {
	var started atomic.Int32
	_, url := startWS(t, nil, countStarts("sleep", &started))
	c := dialWS(t, url)
	wsSend(t, c, `{"jsonrpc":"2.0","method":"sleep","params":[500],"id":"s"}`)
	waitFor(t, "sleep to start", func() bool { return started.Load() == 1 })
	begin := time.Now()
	wsSend(t, c, wsSubtract)
	expectResult(t, wsRecv(t, c), "1", "19")
	if d := time.Since(begin); d > 250*time.Millisecond {
		t.Errorf("subtract took %v behind a sleep", d)
	}
	expectResult(t, wsRecv(t, c), `"s"`, "500")
}

func TestWSTooBig(t *testing.T) {
	_, url := startWS(t, &Options{MaxMessage: 1024})
	c := dialWS(t, url)
	atLimit := wsSubtract[:len(wsSubtract)-1] + strings.Repeat(" ", 1024-len(wsSubtract)) + "}"
	wsSend(t, c, atLimit)
	expectResult(t, wsRecv(t, c), "1", "19")
	wsSend(t, c, strings.Repeat(" ", 2000))
	wsExpectClose(t, c, websocket.CloseMessageTooBig)
	c2 := dialWS(t, url)
	wsSend(t, c2, wsSubtract)
	expectResult(t, wsRecv(t, c2), "1", "19")
}

func TestWSPanic(t *testing.T) {
	_, url := startWS(t, nil)
	c := dialWS(t, url)
	wsSend(t, c, `{"jsonrpc":"2.0","method":"panic","id":7}`)
	expectError(t, wsRecv(t, c), "7", -32603)
	wsSend(t, c, wsSubtract)
	expectResult(t, wsRecv(t, c), "1", "19")
}

func TestWSNotWebSocket(t *testing.T) {
	s, url := startWS(t, nil)
	// A plain GET /ws is refused with 405 like any other GET.
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: testTimeout}).Get("http" + strings.TrimPrefix(url, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("plain GET /ws: %d, want 405", resp.StatusCode)
	}
	if n := s.openWS(); n != 0 {
		t.Errorf("%d websocket connections open", n)
	}
}

func TestWSShutdownAnswersInFlight(t *testing.T) {
	var started atomic.Int32
	s, url := startWS(t, nil, countStarts("sleep", &started))
	c := dialWS(t, url)
	wsSend(t, c, `{"jsonrpc":"2.0","method":"sleep","params":[300],"id":"s"}`)
	waitFor(t, "sleep to start", func() bool { return started.Load() == 1 })
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		done <- s.Shutdown(ctx)
	}()
	expectResult(t, wsRecv(t, c), `"s"`, "300")
	wsExpectClose(t, c, websocket.CloseGoingAway)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("Shutdown did not return")
	}
	if n := s.openWS(); n != 0 {
		t.Errorf("%d websocket connections open after Shutdown", n)
	}
}

// TestWSClientNeverReads: a client that sends calls with large responses and
// never reads. The server stops reading at the bound, holds at most about
// MaxPending, and drops the connection once a write makes no progress for
// WriteTimeout.
func TestWSClientNeverReads(t *testing.T) {
	const (
		maxPending = 64 << 10
		size       = 16 << 10
	)
	s, url := startWS(t, &Options{MaxPending: maxPending, WriteTimeout: 200 * time.Millisecond})
	c := dialWS(t, url)
	msg := []byte(`{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", size) + `"],"id":1}`)
	writer := make(chan struct{})
	go func() {
		defer close(writer)
		for range 100_000 {
			c.SetWriteDeadline(time.Now().Add(testTimeout))
			if c.WriteMessage(websocket.TextMessage, msg) != nil {
				return
			}
		}
	}()
	waitFor(t, "the connection to open", func() bool { return s.openWS() == 1 })
	peak := 0
	deadline := time.Now().Add(testTimeout)
	for s.openWS() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a client that never reads was not dropped")
		}
		s.mu.Lock()
		for wc := range s.ws {
			wc.mu.Lock()
			peak = max(peak, wc.pending)
			wc.mu.Unlock()
		}
		s.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	if limit := maxPending + 2*len(msg) + 512; peak > limit {
		t.Errorf("pending peaked at %d bytes, bound %d", peak, limit)
	}
	t.Logf("pending peak %d bytes", peak)
	select {
	case <-writer:
	case <-time.After(testTimeout):
		t.Fatal("client writes still blocked after the drop")
	}
	var ne net.Error
	c.SetReadDeadline(time.Now().Add(testTimeout))
	for { // what was sent before the drop, then the end
		if _, _, err := c.ReadMessage(); err != nil {
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("connection not closed")
			}
			break
		}
	}
}

// TestWSPing: the server pings every IdleTimeout/2; a client that answers
// (the client package answers pings while it reads) stays connected, one
// that does not is dropped after twice the ping interval.
func TestWSPing(t *testing.T) {
	s, url := startWS(t, &Options{IdleTimeout: 200 * time.Millisecond})
	alive := dialWS(t, url)
	var pings atomic.Int32
	alive.SetPingHandler(func(data string) error {
		pings.Add(1)
		return alive.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	mute := dialWS(t, url)
	mute.SetPingHandler(func(string) error { return nil })
	readErr := make(chan error, 1)
	go func() {
		alive.SetReadDeadline(time.Now().Add(time.Second))
		_, _, err := alive.ReadMessage()
		readErr <- err
	}()
	mute.SetReadDeadline(time.Now().Add(testTimeout))
	begin := time.Now()
	_, _, err := mute.ReadMessage()
	var ne net.Error
	if err == nil || errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("client that does not answer pings: %v, want dropped", err)
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("dropped after %v", d)
	}
	waitFor(t, "only the client that answers pings to be left", func() bool { return s.openWS() == 1 })
	err = <-readErr // the read deadline of the one that answers
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("client that answers pings: %v, want its own read timeout", err)
	}
	if n := pings.Load(); n < 3 {
		t.Errorf("%d pings in a second, want about 10", n)
	}
}

// TestWSShutdownTimeout: a call that outlives Shutdown's context is
// cancelled and its connection closed; Shutdown returns the context's error.
func TestWSShutdownTimeout(t *testing.T) {
	var started atomic.Int32
	s, url := startWS(t, nil, countStarts("sleep", &started))
	c := dialWS(t, url)
	wsSend(t, c, `{"jsonrpc":"2.0","method":"sleep","params":[5000],"id":"s"}`)
	waitFor(t, "sleep to start", func() bool { return started.Load() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v, want deadline exceeded", err)
	}
	c.SetReadDeadline(time.Now().Add(testTimeout))
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("connection not closed")
			}
			break
		}
	}
	waitFor(t, "the connection to end", func() bool { return s.openWS() == 0 })
}
