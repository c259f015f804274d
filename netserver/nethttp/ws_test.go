package nethttp

import (
	"bufio"
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
	"github.com/jetrpc/jetrpc/frame/ws"
	"github.com/jetrpc/jetrpc/internal/vectors"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/internal/servertest"
	"github.com/valyala/fasthttp"
)

var warmWS sync.Once

// startWS serves a demo engine with an HTTPServer on loopback and returns it
// and its WebSocket URL. The cleanup shuts it down, checks that Serve
// returned ErrServerClosed and that no goroutine is left.
func startWS(t *testing.T, opts *netserver.Options, setup ...engineSetup) (*HTTPServer, string) {
	t.Helper()
	warmWS.Do(func() { // fasthttp's process-wide date refresher
		var h fasthttp.ResponseHeader
		h.AppendBytes(nil)
	})
	checkGoroutines(t)
	o := netserver.Options{}
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = quiet
	}
	s := New(newEngine(t, setup...), &o)
	return s, "ws://" + servertest.Serve(t, s, netserver.ErrServerClosed) + "/ws"
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
	_, url := startWS(t, &netserver.Options{MaxMessage: 1024})
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
	s, url := startWS(t, &netserver.Options{MaxPending: maxPending, WriteTimeout: 200 * time.Millisecond})
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
	peak := int64(0)
	deadline := time.Now().Add(testTimeout)
	for s.openWS() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a client that never reads was not dropped")
		}
		peak = max(peak, s.lim.host.Pending())
		time.Sleep(time.Millisecond)
	}
	if limit := int64(maxPending + 2*len(msg) + 512); peak > limit {
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
	s, url := startWS(t, &netserver.Options{IdleTimeout: 200 * time.Millisecond})
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

// rawWS upgrades a bare connection to url, sending after in the same write
// as the request, and returns the connection and a reader of the server's
// frames; the cleanup closes it.
func rawWS(t *testing.T, url string, after []byte) (net.Conn, *ws.Reader) {
	t.Helper()
	nc, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "ws://"), "/ws"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(testTimeout))
	req := "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := nc.Write(append([]byte(req), after...)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %v, %v", resp, err)
	}
	rd := new(ws.Reader)
	rd.Reset(br, ws.Client, 0)
	return nc, rd
}

// clientFrame appends a client's (masked) frame.
func clientFrame(dst []byte, op ws.Opcode, fin bool, payload string) []byte {
	m := ws.MaskWith(0x1a2b3c4d)
	dst = ws.AppendHeader(dst, op, fin, len(payload), m)
	start := len(dst)
	dst = append(dst, payload...)
	m.Apply(dst[start:])
	return dst
}

// serverFrames reads frames until the connection ends and returns them as
// "op:payload" (a close frame as "close:CODE").
func serverFrames(rd *ws.Reader) []string {
	var got []string
	for {
		op, p, err := rd.Next()
		switch {
		case err != nil:
			return got
		case op == ws.OpClose:
			code, _ := ws.ParseClose(p)
			got = append(got, "close:"+fmt.Sprint(code))
		case op == ws.OpPong:
			got = append(got, "pong:"+string(p))
		default:
			got = append(got, "text:"+string(p))
		}
	}
}

// TestWSFragments: frames sent in the same write as the upgrade request
// (buffered by fasthttp) are read; a message in fragments is joined, a ping
// between them answered.
func TestWSFragments(t *testing.T) {
	_, url := startWS(t, nil)
	var b []byte
	b = clientFrame(b, ws.OpText, false, wsSubtract[:20])
	b = clientFrame(b, ws.OpPing, true, "p")
	b = clientFrame(b, ws.OpContinuation, false, wsSubtract[20:40])
	b = clientFrame(b, ws.OpPong, true, "")
	b = clientFrame(b, ws.OpContinuation, true, wsSubtract[40:])
	nc, rd := rawWS(t, url, b)
	if op, p, err := rd.Next(); op != ws.OpPong || string(p) != "p" || err != nil {
		t.Fatalf("got %v %q %v, want the pong", op, p, err)
	}
	if op, p, err := rd.Next(); op != ws.OpText || err != nil {
		t.Fatalf("got %v %q %v, want the response", op, p, err)
	} else {
		expectResult(t, p, "1", "19")
	}
	nc.Write(ws.AppendClose(nil, ws.CloseNormal, "", ws.MaskWith(3)))
	if got := serverFrames(rd); strings.Join(got, "|") != "close:1000" {
		t.Errorf("after the close: %q", got)
	}
}

// TestWSFrames: a close frame is echoed with its code and ends the
// connection; broken frames get 1002 and a message over the limit 1009.
func TestWSFrames(t *testing.T) {
	_, url := startWS(t, &netserver.Options{MaxMessage: 1024})
	f := func(name string, frames []byte, want ...string) {
		t.Helper()
		_, rd := rawWS(t, url, frames)
		if got := serverFrames(rd); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: the server sent %q, want %q", name, got, want)
		}
	}
	f("close", ws.AppendClose(nil, 4000, "done", ws.MaskWith(9)), "close:4000")
	f("no status", clientFrame(nil, ws.OpClose, true, ""), "close:1005")
	f("unmasked", ws.AppendFrame(nil, ws.OpText, []byte(wsSubtract), ws.Mask{}), "close:1002")
	f("reserved bits", []byte{0xc1, 0x80, 0, 0, 0, 0}, "close:1002")
	f("too large", clientFrame(nil, ws.OpText, true, strings.Repeat(" ", 1025)), "close:1009")
	f("too large joined", append(clientFrame(nil, ws.OpText, false, strings.Repeat(" ", 1000)),
		clientFrame(nil, ws.OpContinuation, true, strings.Repeat(" ", 25))...), "close:1009")
}

// TestWSShutdownSilentClient: a client that never answers the close frame
// of Shutdown is disconnected after wsCloseWait, not when Shutdown's
// context ends.
func TestWSShutdownSilentClient(t *testing.T) {
	s, url := startWS(t, nil)
	nc, _ := rawWS(t, url, nil)
	waitFor(t, "the connection to open", func() bool { return s.openWS() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	start := time.Now()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if d := time.Since(start); d > wsCloseWait+time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	nc.SetReadDeadline(time.Now().Add(testTimeout))
	rd := new(ws.Reader)
	rd.Reset(nc, ws.Client, 0)
	if got := serverFrames(rd); strings.Join(got, "|") != "close:1001" {
		t.Errorf("the server sent %q, want close 1001", got)
	}
}
