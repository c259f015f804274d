//go:build unix

package nethttp

// Tests of HTTP connections read and written with raw system calls
// (httpConn.raw, rawio): plain TCP and Unix connections take them, TLS
// keeps net.Conn, and everything that goes through the connection —
// keep-alive, deadlines, hijacks, WebSocket, SSE — behaves as before.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/internal/rawio"
	"github.com/jetrpc/jetrpc/internal/testcert"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/valyala/fasthttp"
)

const (
	rawCall   = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`
	rawAnswer = `{"jsonrpc":"2.0","id":1,"result":19}`
)

// rawServer serves HTTP on a loopback listener of network ("tcp" or
// "unix") with opts and two routes of its own: /conn answers which
// connection the request came on and whether it is read with raw system
// calls; /hijack hijacks the connection, reads a line through fasthttp's
// hijacked connection (which hands out what fasthttp read ahead first),
// and answers it through the Conn rawio.OfWriter finds, as netserver's
// core does for a WebSocket. It returns a dial function and stop, which
// shuts the server down (the test's cleanup does, if stop was not called).
func rawServer(t *testing.T, network string, opts netserver.Options) (dial func() (net.Conn, error), stop func()) {
	t.Helper()
	var warm fasthttp.ResponseHeader // start fasthttp's process-wide date refresher first
	warm.AppendBytes(nil)
	checkGoroutines(t)
	opts.Routes = map[string]fasthttp.RequestHandler{
		"/conn": func(ctx *fasthttp.RequestCtx) {
			c, _ := httpConnOf(ctx.Conn())
			fmt.Fprintf(ctx, "%p raw=%t", c, rawio.Of(ctx.Conn()) != nil)
		},
		"/hijack": func(ctx *fasthttp.RequestCtx) {
			ctx.Hijack(func(nc net.Conn) {
				w := rawio.OfWriter(nc)
				c, _ := httpConnOf(nc.(interface{ UnsafeConn() net.Conn }).UnsafeConn())
				if w == nil || c == nil || w != c.raw {
					nc.Write([]byte("OfWriter did not find the connection's Conn\n"))
					return
				}
				nc.SetReadDeadline(time.Now().Add(testTimeout))
				line, err := bufio.NewReader(nc).ReadString('\n')
				if err != nil {
					fmt.Fprintf(nc, "read: %v\n", err)
					return
				}
				w.Write([]byte("got " + line))
			})
		},
	}
	e := newEngine(t)
	s := New(e, &opts)
	var ln net.Listener
	var err error
	if network == "unix" {
		ln, err = net.Listen("unix", t.TempDir()+"/http.sock")
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			if err := s.Shutdown(ctx); err != nil {
				t.Errorf("Shutdown: %v", err)
			}
			if err := <-done; !errors.Is(err, netserver.ErrServerClosed) {
				t.Errorf("Serve returned %v", err)
			}
		})
	}
	t.Cleanup(stop)
	network, addr := ln.Addr().Network(), ln.Addr().String()
	tlsCfg := opts.TLS
	return func() (net.Conn, error) {
		d := net.Dialer{Timeout: testTimeout}
		c, err := d.Dial(network, addr)
		if err != nil || tlsCfg == nil {
			return c, err
		}
		return tls.Client(c, rawClientTLS), nil
	}, stop
}

// rawClientTLS is the client's TLS configuration for rawServer's TLS
// tests (set by them).
var rawClientTLS *tls.Config

// roundTrip writes req on c and reads one response.
func roundTrip(t *testing.T, c net.Conn, rd *bufio.Reader, req string) (int, string) {
	t.Helper()
	c.SetDeadline(time.Now().Add(testTimeout))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatalf("write: %v", err)
	}
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp.StatusCode, string(b)
}

func postReq(body string) string {
	return fmt.Sprintf("POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

const connReq = "GET /conn HTTP/1.1\r\nHost: x\r\n\r\n"

// TestRawConnKeepAlive: on TCP and Unix sockets, calls on one keep-alive
// connection are answered through raw system calls, and an idle
// connection is closed after IdleTimeout.
func TestRawConnKeepAlive(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			dial, _ := rawServer(t, network, netserver.Options{IdleTimeout: 300 * time.Millisecond})
			c, err := dial()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			rd := bufio.NewReader(c)
			_, first := roundTrip(t, c, rd, connReq)
			if !strings.HasSuffix(first, " raw=true") {
				t.Fatalf("/conn answered %q, want raw=true", first)
			}
			for i := range 20 {
				st, body := roundTrip(t, c, rd, postReq(rawCall))
				if st != http.StatusOK || body != rawAnswer {
					t.Fatalf("call %d: %d %s", i, st, body)
				}
			}
			// A body larger than one read, and a batch.
			big := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 200_000) + `"],"id":2}`
			if st, body := roundTrip(t, c, rd, postReq(big)); st != http.StatusOK || len(body) < 200_000 {
				t.Fatalf("large call: %d, %d bytes", st, len(body))
			}
			if _, again := roundTrip(t, c, rd, connReq); again != first {
				t.Fatalf("/conn answered %q after the calls, want %q: not one keep-alive connection", again, first)
			}
			// Idle past IdleTimeout: the server closes the connection.
			c.SetReadDeadline(time.Now().Add(testTimeout))
			start := time.Now()
			n, err := rd.Read(make([]byte, 1))
			if n != 0 || err != io.EOF {
				t.Fatalf("idle connection: read %d, %v; want the server to close it", n, err)
			}
			if d := time.Since(start); d > testTimeout/2 {
				t.Errorf("idle connection closed after %v", d)
			}
		})
	}
}

// TestRawConnShutdown: Shutdown closes an idle keep-alive connection
// whose reader waits in a raw Read, and Serve returns.
func TestRawConnShutdown(t *testing.T) {
	dial, stop := rawServer(t, "tcp", netserver.Options{})
	c, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rd := bufio.NewReader(c)
	if st, body := roundTrip(t, c, rd, postReq(rawCall)); st != http.StatusOK || body != rawAnswer {
		t.Fatalf("call: %d %s", st, body)
	}
	start := time.Now()
	stop()
	c.SetReadDeadline(time.Now().Add(testTimeout))
	if n, err := rd.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("after Shutdown: read %d, %v; want the connection closed", n, err)
	}
	if d := time.Since(start); d > testTimeout/2 {
		t.Errorf("Shutdown took %v", d)
	}
}

// TestRawConnReadTimeout: a request that stops coming in is cut off after
// ReadTimeout, as with net.Conn.
func TestRawConnReadTimeout(t *testing.T) {
	dial, _ := rawServer(t, "tcp", netserver.Options{ReadTimeout: 300 * time.Millisecond})
	c, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testTimeout))
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
	start := time.Now()
	b, err := io.ReadAll(c)
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read: %v (after %q)", err, b)
	}
	if d := time.Since(start); d > testTimeout/2 {
		t.Errorf("a stalled request cut off after %v", d)
	}
}

// TestRawConnHijack: a hijacked connection hands out what fasthttp read
// ahead before the socket, and rawio.OfWriter finds the socket's Conn
// under it.
func TestRawConnHijack(t *testing.T) {
	dial, _ := rawServer(t, "tcp", netserver.Options{})
	c, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testTimeout))
	// The line comes in the request's own segment: fasthttp reads it ahead.
	io.WriteString(c, "GET /hijack HTTP/1.1\r\nHost: x\r\n\r\nping\n")
	rd := bufio.NewReader(c)
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	line, err := rd.ReadString('\n')
	if err != nil || line != "got ping\n" {
		t.Fatalf("after the hijack: %q, %v; want %q", line, err, "got ping\n")
	}
}

// TestRawConnWebSocketAndSSE: a WebSocket session and an event stream on
// connections read and written with raw system calls.
func TestRawConnWebSocketAndSSE(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			dial, _ := rawServer(t, network, netserver.Options{})
			d := websocket.Dialer{HandshakeTimeout: testTimeout, NetDial: func(string, string) (net.Conn, error) { return dial() }}
			ws, resp, err := d.Dial("ws://localhost/ws", nil) // dialled by NetDial
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			defer ws.Close()
			for i := range 50 {
				wsSend(t, ws, rawCall)
				if got := string(wsRecv(t, ws)); got != rawAnswer {
					t.Fatalf("message %d: %s", i, got)
				}
			}
			// Many answers at once: the core writes them (tryWrite and its flusher).
			var batch bytes.Buffer
			for i := range 200 {
				fmt.Fprintf(&batch, `{"jsonrpc":"2.0","method":"subtract","params":[%d,1],"id":%d}`, i+1, i)
				wsSend(t, ws, batch.String())
				batch.Reset()
			}
			for i := range 200 {
				want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%d}`, i, i)
				if got := string(wsRecv(t, ws)); got != want {
					t.Fatalf("answer %d: %s, want %s", i, got, want)
				}
			}
			ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(testTimeout))

			// An event stream of a batch: one event per answer.
			c, err := dial()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			body := `[{"jsonrpc":"2.0","id":1,"method":"sleep","params":[30]},{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}]`
			req := strings.Replace(postReq(body), "Content-Type", "Accept: text/event-stream\r\nContent-Type", 1)
			c.SetDeadline(time.Now().Add(testTimeout))
			rd := bufio.NewReader(c)
			st, evs := roundTrip(t, c, rd, req)
			if st != http.StatusOK || strings.Count(evs, "data: ") != 2 ||
				!strings.Contains(evs, `"id":2,"result":19}`) || !strings.Contains(evs, `"id":1,`) {
				t.Fatalf("event stream: %d %q", st, evs)
			}
			if _, conn := roundTrip(t, c, rd, connReq); !strings.HasSuffix(conn, " raw=true") {
				t.Fatalf("/conn after the stream: %q", conn)
			}
		})
	}
}

// TestRawConnTLS: a TLS connection keeps net.Conn (no raw system calls
// under TLS) and is served as before.
func TestRawConnTLS(t *testing.T) {
	certs := testcert.New(t, "rawconn")
	rawClientTLS = certs.ClientConfig()
	rawClientTLS.ServerName = "localhost"
	defer func() { rawClientTLS = nil }()
	dial, _ := rawServer(t, "tcp", netserver.Options{TLS: certs.ServerConfig()})
	c, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rd := bufio.NewReader(c)
	if _, conn := roundTrip(t, c, rd, connReq); !strings.HasSuffix(conn, " raw=false") {
		t.Fatalf("/conn over TLS answered %q, want raw=false", conn)
	}
	if st, body := roundTrip(t, c, rd, postReq(rawCall)); st != http.StatusOK || body != rawAnswer {
		t.Fatalf("call over TLS: %d %s", st, body)
	}
	if st := c.(*tls.Conn).ConnectionState(); !st.HandshakeComplete {
		t.Fatal("no TLS handshake")
	}
}
