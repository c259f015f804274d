package httpc

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"io"
	"net"
	neturl "net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// peer is a hand-written HTTP server on a loopback port: answer writes the
// answer to each request read (its body is given) and reports whether to
// keep the connection.
func peer(t *testing.T, answer func(c net.Conn, n int, body string) bool) (*Client, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var conns atomic.Int32
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					length := -1
					for {
						line, err := r.ReadString('\n')
						if err != nil {
							return
						}
						if line == "\r\n" {
							break
						}
						if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
							length, _ = strconv.Atoi(strings.TrimSpace(v))
						}
					}
					body := make([]byte, length)
					if _, err := io.ReadFull(r, body); err != nil {
						return
					}
					if !answer(c, int(n.Add(1)), string(body)) {
						return
					}
				}
			}()
		}
	}()
	u, _ := neturl.Parse("http://" + ln.Addr().String() + "/rpc")
	c, err := New(u, Options{IdleTimeout: time.Second, MaxBody: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c, &conns
}

func post(c *Client, body string) (int, string, error) {
	var r Response
	err := c.Post(nil, []byte(body), &r, time.Now().Add(5*time.Second))
	return r.StatusCode, string(r.Body), err
}

// TestFraming: bodies by Content-Length, chunked and to the end of the
// connection, after 1xx answers, and over the limit.
func TestFraming(t *testing.T) {
	f := func(name, answer string, keep bool, wantStatus int, wantBody string, wantErr error) {
		t.Helper()
		c, conns := peer(t, func(c net.Conn, _ int, _ string) bool {
			io.WriteString(c, answer)
			return keep
		})
		for i := range 2 {
			status, body, err := post(c, "{}")
			if status != wantStatus || body != wantBody || !errors.Is(err, wantErr) {
				t.Errorf("%s #%d: %d %q %v, want %d %q %v", name, i, status, body, err, wantStatus, wantBody, wantErr)
			}
		}
		if want := map[bool]int32{true: 1, false: 2}[keep]; wantErr == nil && conns.Load() != want {
			t.Errorf("%s: %d connections, want %d", name, conns.Load(), want)
		}
	}
	f("length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true, 200, "ok", nil)
	f("chunked", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2;x=y\r\nok\r\nA\r\n0123456789\r\n0\r\nT: v\r\n\r\n", true, 200, "ok0123456789", nil)
	f("close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", false, 200, "ok", nil)
	f("http/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", false, 200, "ok", nil)
	f("until close", "HTTP/1.1 200 OK\r\n\r\nto the end", false, 200, "to the end", nil)
	f("continue", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n", true, 204, "", nil)
	f("bare LF", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", true, 200, "ok", nil)
	f("too large", "HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n", false, 200, "", ErrBodyTooLarge)
	f("chunk too large", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n65\r\n", false, 200, "", ErrBodyTooLarge)
	f("malformed", "HTTP/2 200 OK\r\n\r\n", false, 0, "", ErrMalformed)
}

// TestRetry: a request the server drops before answering is sent again, on
// another connection (an idle keep-alive connection the server closed);
// a server that always does so is ErrConnectionClosed.
func TestRetry(t *testing.T) {
	c, conns := peer(t, func(c net.Conn, n int, body string) bool {
		if n == 2 {
			return false // the kept connection closes at the second request
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		return true
	})
	for _, body := range []string{"a", "b"} {
		if _, got, err := post(c, body); got != body || err != nil {
			t.Errorf("post %s: %q %v", body, got, err)
		}
	}
	if conns.Load() != 2 {
		t.Errorf("%d connections, want 2", conns.Load())
	}
	c, conns = peer(t, func(net.Conn, int, string) bool { return false })
	if _, _, err := post(c, "x"); !errors.Is(err, ErrConnectionClosed) || conns.Load() != maxAttempts {
		t.Errorf("dropped requests: %v after %d connections, want ErrConnectionClosed after %d", err, conns.Load(), maxAttempts)
	}
}

// TestDeadline: an answer that does not come by the deadline is ErrTimeout.
func TestDeadline(t *testing.T) {
	c, _ := peer(t, func(net.Conn, int, string) bool { time.Sleep(300 * time.Millisecond); return false })
	var r Response
	if err := c.Post(nil, []byte("x"), &r, time.Now().Add(50*time.Millisecond)); !errors.Is(err, ErrTimeout) {
		t.Errorf("Post: %v, want ErrTimeout", err)
	}
}

// TestIdle: an idle connection is closed after IdleTimeout, and one is
// reused before.
func TestIdle(t *testing.T) {
	c, conns := peer(t, func(c net.Conn, _ int, _ string) bool {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
		return true
	})
	c.idleFor = 50 * time.Millisecond
	post(c, "x")
	post(c, "x")
	if conns.Load() != 1 {
		t.Errorf("%d connections, want 1", conns.Load())
	}
	time.Sleep(150 * time.Millisecond)
	c.mu.Lock()
	idle := len(c.idle)
	c.mu.Unlock()
	if idle != 0 {
		t.Errorf("%d idle connections after IdleTimeout, want 0", idle)
	}
	post(c, "x")
	if conns.Load() != 2 {
		t.Errorf("%d connections, want 2", conns.Load())
	}
}

// TestWebSocketHandshake: a handshake answered wrongly is ErrBadHandshake;
// bytes after the 101 answer stay on the connection.
func TestWebSocketHandshake(t *testing.T) {
	f := func(answer func(key string) string, check func(nc net.Conn, err error)) {
		t.Helper()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			r := bufio.NewReader(c)
			key := ""
			for {
				line, err := r.ReadString('\n')
				if err != nil || line == "\r\n" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Sec-WebSocket-Key: "); ok {
					key = strings.TrimSpace(v)
				}
			}
			io.WriteString(c, answer(key))
			io.Copy(io.Discard, r)
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		nc, _, err := DialWebSocket(ctx, "ws://"+ln.Addr().String()+"/ws", WSOptions{UserAgent: "test"})
		if nc != nil {
			defer nc.Close()
		}
		check(nc, err)
	}
	accept := func(key string) string {
		h := sha1Accept(key)
		return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\nConnection: upgrade\r\nSec-WebSocket-Accept: " + h + "\r\n\r\nafter"
	}
	f(accept, func(nc net.Conn, err error) {
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 5)
		if _, err := io.ReadFull(nc, b); err != nil || string(b) != "after" {
			t.Errorf("after the handshake: %q %v", b, err)
		}
	})
	for _, answer := range []func(string) string{
		func(string) string { return "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n" },
		func(string) string {
			return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
		},
	} {
		f(answer, func(_ net.Conn, err error) {
			if !errors.Is(err, ErrBadHandshake) {
				t.Errorf("bad handshake: %v", err)
			}
		})
	}
}

func sha1Accept(key string) string {
	sum := sha1.Sum([]byte(key + wsGUID))
	return base64.StdEncoding.EncodeToString(sum[:])
}
