package client_test

import (
	"bufio"
	"context"
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame/ws"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// The tests of every transport (eachTransport) run over WebSocket too.
func init() {
	transports = append(transports, transport{"ws", func(t *testing.T, opts *client.Options) *client.Client {
		_, url := startWS(t, nil)
		return dialWS(t, url, opts)
	}})
}

// startWS starts a demo HTTP server with opts on a loopback port and
// returns it and its WebSocket URL; the cleanup shuts it down.
func startWS(t testing.TB, opts *netserver.Options) (*nethttp.HTTPServer, string) {
	t.Helper()
	o := netserver.Options{}
	if opts != nil {
		o = *opts
	}
	o.Logger = quiet
	s := nethttp.New(newEngine(t), &o)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		s.Shutdown(ctx)
		select {
		case <-done:
		case <-time.After(testTimeout):
			t.Error("Serve did not return after Shutdown")
		}
	})
	return s, "ws://" + ln.Addr().String() + "/ws"
}

func dialWS(t testing.TB, url string, opts *client.Options) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := client.DialWebSocket(ctx, url, testOptions(opts))
	if err != nil {
		t.Fatal(err)
	}
	return closeOnCleanup(t, c)
}

// closeCode returns the code of the close frame that err reports (the
// client's, or the test peer's library's), or 0.
func closeCode(err error) int {
	var ce *client.CloseError
	var pe *websocket.CloseError
	switch {
	case errors.As(err, &ce):
		return ce.Code
	case errors.As(err, &pe):
		return pe.Code
	}
	return 0
}

// TestWSSizes echoes messages around the lengths where the frame header
// changes form (126 and 65,536 bytes) and a large one.
func TestWSSizes(t *testing.T) {
	checkGoroutines(t)
	_, url := startWS(t, nil)
	c := dialWS(t, url, nil)
	sizes := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 3 << 20}
	for n := range 24 {
		sizes = append(sizes, 60+n, 65460+n) // the requests are 55-60 bytes longer
	}
	for _, n := range sizes {
		params := `["` + strings.Repeat("x", n) + `"]`
		got, err := c.CallRaw(context.Background(), nil, "echo", []byte(params))
		if err != nil || string(got) != params {
			t.Errorf("echo of %d bytes: %d bytes back, %v", n, len(got), err)
		}
	}
}

// TestWSCancel: a cancelled call returns at once and the connection keeps
// working.
func TestWSCancel(t *testing.T) {
	checkGoroutines(t)
	_, url := startWS(t, nil)
	c := dialWS(t, url, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	if _, err := c.CallRaw(ctx, nil, "sleep", []byte(`[5000]`)); !errors.Is(err, context.Canceled) {
		t.Errorf("sleep 5000: %v, want Canceled", err)
	}
	if d := time.Since(start); d > prompt {
		t.Errorf("cancelled call returned after %v", d)
	}
	if got, err := c.CallRaw(context.Background(), nil, "subtract", []byte(`[5,2]`)); err != nil || string(got) != "3" {
		t.Errorf("call after a cancelled one = %s, %v", got, err)
	}
}

func TestWSServerShutdown(t *testing.T) {
	const n = 20
	// The server answers the calls in flight, then goes away with 1001.
	t.Run("answered", func(t *testing.T) {
		checkGoroutines(t)
		s, url := startWS(t, nil)
		c := dialWS(t, url, nil)
		errs := make(chan error, n)
		for range n {
			go func() {
				_, err := c.CallRaw(context.Background(), nil, "sleep", []byte(`[300]`))
				errs <- err
			}()
		}
		waitPending()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		for range n {
			if err := <-errs; err != nil {
				t.Errorf("call in flight at Shutdown: %v", err)
			}
		}
		err := waitClosedClient(t, c)
		if !errors.Is(err, client.ErrClosed) || closeCode(err) != websocket.CloseGoingAway {
			t.Errorf("call after Shutdown: %v, want ErrClosed and 1001", err)
		}
	})
	// Shutdown gives up waiting: every call returns, none hangs.
	t.Run("abandoned", func(t *testing.T) {
		checkGoroutines(t)
		s, url := startWS(t, nil)
		c := dialWS(t, url, nil)
		errs := pendingCalls(c, n)
		waitPending()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		s.Shutdown(ctx)
		expectErrors(t, errs, n, nil)
	})
}

// waitClosedClient calls until a call fails (the client saw the connection
// end) and returns that error.
func waitClosedClient(t *testing.T, c *client.Client) error {
	t.Helper()
	for deadline := time.Now().Add(testTimeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := c.CallRaw(context.Background(), nil, "subtract", []byte(`[2,1]`)); err != nil {
			return err
		}
	}
	t.Fatal("the client still works")
	return nil
}

func TestWSTooLarge(t *testing.T) {
	checkGoroutines(t)
	_, url := startWS(t, &netserver.Options{MaxMessage: 1024})
	big := []byte(`["` + strings.Repeat("x", 2000) + `"]`)
	ctx := context.Background()

	// Over the client's limit: refused before it is sent.
	c := dialWS(t, url, &client.Options{MaxMessage: 1000})
	if _, err := c.CallRaw(ctx, nil, "echo", big); !errors.Is(err, client.ErrTooLarge) {
		t.Errorf("over the client's limit: %v, want ErrTooLarge", err)
	}
	if got, err := c.CallRaw(ctx, nil, "subtract", []byte(`[2,1]`)); err != nil || string(got) != "1" {
		t.Errorf("call after a refused one = %s, %v", got, err)
	}

	// Over the server's limit: the server closes with 1009.
	c = dialWS(t, url, nil)
	_, err := c.CallRaw(ctx, nil, "echo", big)
	if !errors.Is(err, client.ErrClosed) || closeCode(err) != websocket.CloseMessageTooBig {
		t.Errorf("over the server's limit: %v, want ErrClosed and 1009", err)
	}

	// A response over the client's limit: the client closes with 1009.
	got := make(chan int, 1)
	url = wsPeer(t, func(wc *websocket.Conn) {
		id := requestID(t, peerRead(t, wc))
		peerWrite(t, wc, `{"jsonrpc":"2.0","id":`+id+`,"result":"`+strings.Repeat("x", 2000)+`"}`)
		_, _, err := wc.ReadMessage()
		got <- closeCode(err)
	})
	c = dialWS(t, url, &client.Options{MaxMessage: 1000})
	if _, err := c.CallRaw(ctx, nil, "m", nil); !errors.Is(err, client.ErrClosed) || !errors.As(err, new(*ws.TooLargeError)) {
		t.Errorf("response over the client's limit: %v, want ErrClosed and a *ws.TooLargeError", err)
	}
	if code := <-got; code != websocket.CloseMessageTooBig {
		t.Errorf("the client closed with %d, want 1009", code)
	}
}

// TestWSPing: the client answers the server's pings, which keeps an idle
// connection open past the server's read deadline.
func TestWSPing(t *testing.T) {
	checkGoroutines(t)
	_, url := startWS(t, &netserver.Options{IdleTimeout: 200 * time.Millisecond}) // pings every 100ms
	c := dialWS(t, url, nil)
	time.Sleep(600 * time.Millisecond)
	if got, err := c.CallRaw(context.Background(), nil, "subtract", []byte(`[2,1]`)); err != nil || string(got) != "1" {
		t.Errorf("call after idling = %s, %v", got, err)
	}
}

// wsPeer is a hand-written WebSocket peer (net/http and the library's
// Upgrader) on a loopback port: it runs serve on one connection. The
// cleanup closes it and waits for serve to return.
func wsPeer(t *testing.T, serve func(wc *websocket.Conn)) string {
	t.Helper()
	var wg sync.WaitGroup
	conns := make(chan *websocket.Conn, 1)
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wg.Add(1) // before the hijack: srv.Close waits until then
		defer wg.Done()
		wc, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		conns <- wc
		wc.SetReadDeadline(time.Now().Add(testTimeout))
		serve(wc)
	}))
	t.Cleanup(func() {
		select {
		case wc := <-conns:
			wc.Close()
		default:
		}
		srv.Close()
		wg.Wait()
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws"
}

func peerRead(t *testing.T, wc *websocket.Conn) string {
	_, msg, err := wc.ReadMessage()
	if err != nil {
		t.Errorf("peer read: %v", err)
	}
	return string(msg)
}

func peerWrite(t *testing.T, wc *websocket.Conn, msg string) {
	if err := wc.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Errorf("peer write: %v", err)
	}
}

// TestWSServerMessages has a peer notify and call the client, whose
// Handler is a dispatch.Engine, then go away (1001) with a call pending.
func TestWSServerMessages(t *testing.T) {
	checkGoroutines(t)
	e := newEngine(t)
	notified := make(chan string, 1)
	note := dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		notified <- string(params)
		return dst, nil
	})
	if err := e.RegisterMethod(dispatch.Method{Name: "note", Handler: note}); err != nil {
		t.Fatal(err)
	}
	answer := make(chan string, 1)
	closed := make(chan int, 1)
	url := wsPeer(t, func(wc *websocket.Conn) {
		peerWrite(t, wc, `{"jsonrpc":"2.0","method":"note","params":["hi"]}`)
		peerWrite(t, wc, `{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":"s1"}`)
		answer <- peerRead(t, wc)
		id := requestID(t, peerRead(t, wc)) // the client's own call
		peerWrite(t, wc, `{"jsonrpc":"2.0","id":`+id+`,"result":"mine"}`)
		peerRead(t, wc) // a call left unanswered
		wc.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "bye"), time.Now().Add(time.Second))
		_, _, err := wc.ReadMessage() // the client's close frame
		closed <- closeCode(err)
	})
	c := dialWS(t, url, &client.Options{Handler: e})
	if n := <-notified; n != `["hi"]` {
		t.Errorf("notification params = %s", n)
	}
	if a := <-answer; a != `{"jsonrpc":"2.0","id":"s1","result":2}` {
		t.Errorf("answer = %s", a)
	}
	ctx := context.Background()
	if res, err := c.CallRaw(ctx, nil, "m", nil); err != nil || string(res) != `"mine"` {
		t.Errorf("own call = %s, %v", res, err)
	}
	if _, err := c.CallRaw(ctx, nil, "m", nil); !errors.Is(err, client.ErrClosed) || closeCode(err) != websocket.CloseGoingAway {
		t.Errorf("call pending when the peer went away: %v, want ErrClosed and 1001", err)
	}
	if code := <-closed; code != websocket.CloseGoingAway {
		t.Errorf("the client answered close %d, want 1001", code)
	}
}

// TestWSClose: Close sends close 1000, and returns within its grace when
// the peer never answers.
func TestWSClose(t *testing.T) {
	checkGoroutines(t)
	got := make(chan int, 1)
	url := wsPeer(t, func(wc *websocket.Conn) {
		_, _, err := wc.ReadMessage()
		got <- closeCode(err)
	})
	c := dialWS(t, url, nil)
	c.Close()
	if code := <-got; code != websocket.CloseNormalClosure {
		t.Errorf("close code %d, want 1000", code)
	}

	stuck := make(chan struct{})
	url = wsPeer(t, func(*websocket.Conn) { <-stuck }) // never reads
	t.Cleanup(func() { close(stuck) })
	c = dialWS(t, url, nil)
	start := time.Now()
	c.Close()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
}

func TestWSDialErrors(t *testing.T) {
	checkGoroutines(t)
	ctx := context.Background()
	f := func(url string, want func(error) bool) {
		t.Helper()
		if c, err := client.DialWebSocket(ctx, url, testOptions(nil)); !want(err) {
			t.Errorf("DialWebSocket %s: %v", url, err)
			if c != nil {
				c.Close()
			}
		}
	}
	failed := func(err error) bool { return err != nil }
	f("http://127.0.0.1:1/ws", failed)
	f("ws://127.0.0.1:1/ws", failed) // refused
	_, url := startWS(t, nil)
	f(strings.Replace(url, "/ws", "/rpc", 1), func(err error) bool {
		return errors.Is(err, client.ErrBadHandshake) && strings.Contains(err.Error(), "HTTP status 405")
	})
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler()) // a certificate nobody trusts
	defer tlsSrv.Close()
	f("wss"+strings.TrimPrefix(tlsSrv.URL, "https")+"/ws", func(err error) bool {
		var ce *tls.CertificateVerificationError
		return errors.As(err, &ce)
	})

	// A server that never answers the handshake: cancelling ctx ends it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	if _, err := client.DialWebSocket(cctx, "ws://"+ln.Addr().String()+"/ws", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("stalled handshake: %v, want Canceled", err)
	}
	if d := time.Since(start); d > prompt {
		t.Errorf("cancelled dial returned after %v", d)
	}
}

// wsServerEnv makes the test binary a WebSocket demo server that prints its
// URL and serves until stdin ends (TestWSServerProcess): the server of
// TestWSCallRawAllocs, whose allocations must not be counted.
const wsServerEnv = "JETRPC_CLIENT_TEST_WS_SERVER"

func TestWSServerProcess(t *testing.T) {
	if os.Getenv(wsServerEnv) == "" {
		return // only as the child of startWSProcess
	}
	_, url := startWS(t, nil)
	os.Stdout.WriteString(url + "\n")
	io.Copy(io.Discard, os.Stdin)
}

// startWSProcess starts the test binary as a WebSocket demo server and
// returns its URL; the cleanup ends it.
func startWSProcess(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWSServerProcess$")
	cmd.Env = append(os.Environ(), wsServerEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(testTimeout):
			cmd.Process.Kill()
			<-done
			t.Error("the server process did not exit")
		}
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case url := <-line:
		if !strings.HasPrefix(url, "ws://") {
			t.Fatalf("the server process printed %q", url)
		}
		return url
	case <-time.After(testTimeout):
		cmd.Process.Kill()
		t.Fatal("the server process did not start")
	}
	return ""
}

// raceEnabled reports whether the race detector is on: sync.Pool then
// drops items at random, so allocations cannot be counted.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	return ok && slices.Contains(bi.Settings, debug.BuildSetting{Key: "-race", Value: "true"})
}

// TestWSCallRawAllocs counts the client's allocations per raw call, the
// server running in another process: none, compressed or not.
func TestWSCallRawAllocs(t *testing.T) {
	if raceEnabled() {
		t.Skip("allocations are not counted under the race detector")
	}
	checkGoroutines(t)
	c := dialWS(t, startWSProcess(t), nil)
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := []byte(`[42,23]`)
	for _, ctx := range []context.Context{context.Background(), cancellable} {
		dst := make([]byte, 0, 64)
		var err error
		call := func() { dst, err = c.CallRaw(ctx, dst[:0], "subtract", params) }
		for range 100 {
			call()
		}
		if n := testing.AllocsPerRun(1000, call); n != 0 {
			t.Errorf("CallRaw allocates %v times per call, want 0", n)
		}
		if err != nil || string(dst) != "19" {
			t.Errorf("CallRaw = %s, %v", dst, err)
		}
	}
	// Over 1 KiB both ways: compressed with permessage-deflate.
	big := []byte(`["` + strings.Repeat("0x000000000000000000000000c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", 30) + `"]`)
	dst := make([]byte, 0, 4096)
	var err error
	call := func() { dst, err = c.CallRaw(context.Background(), dst[:0], "echo", big) }
	for range 100 {
		call()
	}
	if n := testing.AllocsPerRun(1000, call); n != 0 {
		t.Errorf("CallRaw of %d compressed bytes allocates %v times per call, want 0", len(big), n)
	}
	if err != nil || string(dst) != string(big) {
		t.Errorf("CallRaw = %.40s, %v", dst, err)
	}
}

// BenchmarkCallRawWS is one raw call's round trip over a loopback
// WebSocket to a jetrpc server in the same process.
func BenchmarkCallRawWS(b *testing.B) {
	_, url := startWS(b, nil)
	benchCallRaw(b, dialWS(b, url, nil))
}

// rawWSPeer is a WebSocket peer written on a bare connection: it answers
// the handshake of one client with 101 and, in the same write, the frames
// of first, then runs serve with the connection and a frame reader on it.
// The cleanup closes it and waits for serve to return.
func rawWSPeer(t *testing.T, first []byte, serve func(nc net.Conn, rd *ws.Reader)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(testTimeout))
		br := bufio.NewReader(nc)
		req, err := http.ReadRequest(br)
		if err != nil {
			t.Errorf("peer: %v", err)
			return
		}
		h := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		out := []byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
			base64.StdEncoding.EncodeToString(h[:]) + "\r\n\r\n")
		if _, err := nc.Write(append(out, first...)); err != nil {
			return
		}
		var rd ws.Reader
		rd.Reset(br, ws.Server, 0)
		serve(nc, &rd)
	}()
	return "ws://" + ln.Addr().String() + "/ws"
}

// nextFrame reads the next frame from the client, as "op:payload" (a close
// frame as "close:CODE").
func nextFrame(t *testing.T, rd *ws.Reader) string {
	op, p, err := rd.Next()
	if err != nil {
		return "error:" + err.Error()
	}
	switch op {
	case ws.OpClose:
		code, _ := ws.ParseClose(p)
		return "close:" + strconv.Itoa(code)
	case ws.OpPing:
		return "ping:" + string(p)
	case ws.OpPong:
		return "pong:" + string(p)
	}
	return "text:" + string(p)
}

// TestWSFramesAfterHandshake: frames that come in the same segment as the
// 101 answer are not lost in the Dialer's buffer, and the server's pings
// are answered with their payload, between the client's messages.
func TestWSFramesAfterHandshake(t *testing.T) {
	checkGoroutines(t)
	e := newEngine(t)
	notified := make(chan string, 2)
	note := dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		notified <- string(params)
		return dst, nil
	})
	if err := e.RegisterMethod(dispatch.Method{Name: "note", Handler: note}); err != nil {
		t.Fatal(err)
	}
	var first []byte
	first = ws.AppendFrame(first, ws.OpText, []byte(`{"jsonrpc":"2.0","method":"note","params":["a"]}`), ws.Mask{})
	first = ws.AppendFrame(first, ws.OpPing, []byte("p1"), ws.Mask{})
	first = ws.AppendFrame(first, ws.OpText, []byte(`{"jsonrpc":"2.0","method":"note","params":["b"]}`), ws.Mask{})
	got := make(chan []string, 1)
	url := rawWSPeer(t, first, func(nc net.Conn, rd *ws.Reader) {
		frames := []string{nextFrame(t, rd)}
		id := requestID(t, strings.TrimPrefix(nextFrame(t, rd), "text:"))
		nc.Write(ws.AppendFrame(nil, ws.OpText, []byte(`{"jsonrpc":"2.0","id":`+id+`,"result":1}`), ws.Mask{}))
		frames = append(frames, nextFrame(t, rd)) // Close's
		got <- frames
	})
	c := dialWS(t, url, &client.Options{Handler: e})
	for _, want := range []string{`["a"]`, `["b"]`} {
		select {
		case n := <-notified:
			if n != want {
				t.Errorf("notification %s, want %s", n, want)
			}
		case <-time.After(testTimeout):
			t.Fatalf("notification %s lost", want)
		}
	}
	if res, err := c.CallRaw(context.Background(), nil, "m", nil); err != nil || string(res) != "1" {
		t.Errorf("call = %s, %v", res, err)
	}
	c.Close()
	if frames := <-got; strings.Join(frames, "|") != "pong:p1|close:1000" {
		t.Errorf("the client sent %q", frames)
	}
}

// TestWSProtocolError: a server that breaks the protocol (a masked frame)
// gets close 1002 and the calls fail with ErrClosed.
func TestWSProtocolError(t *testing.T) {
	checkGoroutines(t)
	got := make(chan string, 1)
	url := rawWSPeer(t, nil, func(nc net.Conn, rd *ws.Reader) {
		nextFrame(t, rd) // the call
		nc.Write(ws.AppendFrame(nil, ws.OpText, []byte(`{}`), ws.MaskWith(1)))
		got <- nextFrame(t, rd)
	})
	c := dialWS(t, url, nil)
	if _, err := c.CallRaw(context.Background(), nil, "m", nil); !errors.Is(err, client.ErrClosed) {
		t.Errorf("call: %v, want ErrClosed", err)
	}
	if f := <-got; f != "close:1002" {
		t.Errorf("the client sent %s, want close 1002", f)
	}
}
