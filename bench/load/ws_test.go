package load

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame/ws"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// wsListen listens on a free loopback port.
func wsListen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func wsEngine(t *testing.T) *dispatch.Engine {
	t.Helper()
	e := dispatch.New(nil)
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// wsJetrpc starts jetrpc's HTTP server (WebSocket at GET /ws) on loopback.
func wsJetrpc(t *testing.T) string {
	t.Helper()
	srv := nethttp.New(wsEngine(t), nil)
	ln := wsListen(t)
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return ln.Addr().String()
}

// wsBaseline starts a bench.WSServer answering with handle.
func wsBaseline(t *testing.T, handle func(dst, msg []byte) []byte) string {
	t.Helper()
	srv := &bench.WSServer{Handle: handle}
	ln := wsListen(t)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

func wsMix(t *testing.T, spec string) []Request {
	t.Helper()
	reqs, err := Mix(spec)
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// TestWSExactCounts: a fixed count is sent exactly over WebSocket, every
// call answered and matched, against jetrpc and the encoding/json baseline.
func TestWSExactCounts(t *testing.T) {
	jet := wsJetrpc(t)
	std := wsBaseline(t, bench.StdlibLine(bench.NewStdlib()))
	f := func(name string, cfg Config, wantCalls, wantNotes int64) {
		t.Run(name, func(t *testing.T) {
			var progress atomic.Int64
			cfg.Transport, cfg.Progress = WS, &progress
			res, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			c := res.Counts
			if c.Sent != cfg.Count || c.Calls != wantCalls || c.Notifications != wantNotes || c.OK != wantCalls || c.Failed() != 0 {
				t.Errorf("counts %+v, want %d calls and %d notifications, all OK", c, wantCalls, wantNotes)
			}
			if res.Latency.Count() != uint64(wantCalls) || progress.Load() != cfg.Count || res.Rate() <= 0 || c.BytesIn == 0 {
				t.Errorf("latency count %d, progress %d, rate %v, bytes in %d", res.Latency.Count(), progress.Load(), res.Rate(), c.BytesIn)
			}
		})
	}
	all := wsMix(t, "all") // 5 requests, one a notification: 1000 = 800 calls + 200 notifications
	f("jetrpc/pipelined", Config{Addr: jet, Conns: 4, Pipeline: 8, Count: 1000, Requests: all}, 800, 200)
	f("jetrpc/reqresp", Config{Addr: jet, Conns: 3, Pipeline: 1, Count: 999, Requests: wsMix(t, "small=2,batch10")}, 999, 0)
	f("jetrpc/url", Config{Addr: "ws://" + jet + "/ws", Conns: 2, Pipeline: 4, Count: 500, Requests: all}, 400, 100)
	f("baseline", Config{Addr: std, Conns: 4, Pipeline: 8, Count: 1000, Requests: all}, 800, 200)
}

// TestWSDuration: a run bounded in time ends soon after its bound.
func TestWSDuration(t *testing.T) {
	addr := wsJetrpc(t)
	start := time.Now()
	res, err := Run(context.Background(), Config{Addr: addr, Transport: WS, Conns: 2, Pipeline: 4,
		Duration: 300 * time.Millisecond, Requests: wsMix(t, "small,large")})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if res.OK == 0 || res.Failed() != 0 || res.OK != res.Calls {
		t.Errorf("counts %+v", res.Counts)
	}
}

// TestWSBadServer: a server that drops, corrupts and misaddresses answers
// is reported in the counts as over TCP (TestBadServer).
func TestWSBadServer(t *testing.T) {
	e := wsEngine(t)
	var n atomic.Int64
	addr := wsBaseline(t, func(dst, msg []byte) []byte {
		switch i := n.Add(1); {
		case i%10 == 0: // dropped
			return dst
		case i%10 == 1: // corrupted
			return append(dst, `{"jsonrpc":"2.0","id":`...)
		case i%10 == 2: // an id nobody sent
			return append(dst, `{"jsonrpc":"2.0","id":12345678,"result":1}`...)
		case i%10 == 3: // an error
			return append(dst, strings.Replace(string(e.Process(nil, msg)), `"result":19`, `"error":{"code":-32000,"message":"x"}`, 1)...)
		}
		return e.Process(dst, msg)
	})
	res, err := Run(context.Background(), Config{Addr: addr, Transport: WS, Conns: 2, Pipeline: 10,
		Count: 1000, Requests: wsMix(t, "small"), Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Counts
	if c.Sent != 1000 || c.OK != 600 || c.Errors != 100 || c.Malformed != 100 || c.Mismatched != 100 || c.Unanswered != 300 {
		t.Errorf("counts %+v", c)
	}
	if c.OK+c.Errors+c.Unanswered != c.Calls {
		t.Errorf("calls do not add up: %+v", c)
	}
}

// TestWSNoServer: a run that cannot connect or upgrade fails at once.
func TestWSNoServer(t *testing.T) {
	ln := wsListen(t)
	closed := ln.Addr().String()
	ln.Close()
	plain := wsListen(t) // an HTTP server without WebSocket
	hs := &http.Server{Handler: http.NotFoundHandler()}
	go hs.Serve(plain)
	t.Cleanup(func() { hs.Close() })
	f := func(addr, wantErr string) {
		t.Helper()
		_, err := Run(context.Background(), Config{Addr: addr, Transport: WS, Count: 1, Requests: wsMix(t, "small"), Timeout: time.Second})
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: error %v, want one with %q", addr, err, wantErr)
		}
	}
	f(closed, "refused")
	f(plain.Addr().String(), "404 Not Found")
	f("wss://"+closed+"/ws", "want a ws:// URL")
	f("http://"+closed+"/ws", "want a ws:// URL")
}

// TestWSAfterHandshake: frames the server sends in the same segment as its
// 101 answer are not lost in the Dialer's buffer.
func TestWSAfterHandshake(t *testing.T) {
	ln := wsListen(t)
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		req, err := http.ReadRequest(bufio.NewReader(c)) // the client sends nothing more
		if err != nil {
			return
		}
		h := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		out := []byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
			base64.StdEncoding.EncodeToString(h[:]) + "\r\n\r\n")
		out = ws.AppendFrame(out, ws.OpText, []byte("hello"), ws.Mask{})
		out = ws.AppendFrame(out, ws.OpText, []byte("world"), ws.Mask{})
		c.Write(out)
		io.Copy(io.Discard, c) // until the client closes
	}()
	c, err := dialWSConn(context.Background(), "ws://"+ln.Addr().String()+"/ws", 5*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.nc.Close()
	c.nc.SetDeadline(time.Now().Add(5 * time.Second))
	for _, want := range []string{"hello", "world"} {
		if _, msg, err := c.rd.Next(); err != nil || string(msg) != want {
			t.Errorf("got %q, %v; want %q", msg, err, want)
		}
	}
}

// serverFrame appends an unmasked frame, as a server sends it.
func serverFrame(dst []byte, op ws.Opcode, fin bool, payload []byte) []byte {
	return append(ws.AppendHeader(dst, op, fin, len(payload), ws.Mask{}), payload...)
}

// TestWSAnswer: the answers among the server's control frames: pings owe
// pongs, pongs are dropped, a close ends the stream, an answer over the
// limit is an error; read whole and one byte at a time. (The frames
// themselves are frame/ws's to check.)
func TestWSAnswer(t *testing.T) {
	f := func(name string, stream []byte, want []string, wantErr error, wantPong []byte) {
		t.Helper()
		for _, one := range []bool{false, true} {
			var src io.Reader = bytes.NewReader(stream)
			if one {
				src = iotest.OneByteReader(src)
			}
			c := &wsConn{}
			c.rd.Reset(src, ws.Client, 1000)
			var got []string
			var err error
			for {
				var msg []byte
				if msg, _, err = c.answer(true); err != nil {
					break
				}
				got = append(got, string(msg))
			}
			if strings.Join(got, "|") != strings.Join(want, "|") || !sameWSErr(err, wantErr) {
				t.Errorf("%s (one byte reads %v): got %q, err %v; want %q, %v", name, one, got, err, want, wantErr)
			}
			if pong := unmaskFrames(t, c.pong); !bytes.Equal(pong, wantPong) {
				t.Errorf("%s: pong %q, want %q", name, pong, wantPong)
			}
		}
	}
	frames := func(fs ...[]byte) []byte { return bytes.Join(fs, nil) }
	text := func(s string) []byte { return serverFrame(nil, ws.OpText, true, []byte(s)) }
	ping := func(s string) []byte { return serverFrame(nil, ws.OpPing, true, []byte(s)) }
	f("two", frames(text("a"), text(`{"x":1}`)), []string{"a", `{"x":1}`}, io.EOF, nil)
	f("control frames", frames(serverFrame(nil, ws.OpText, false, []byte("ab")), ping("p"),
		serverFrame(nil, ws.OpPong, true, nil), serverFrame(nil, ws.OpContinuation, true, []byte("c")), ping("q"), text("d")),
		[]string{"abc", "d"}, io.EOF, []byte("pq"))
	f("close", frames(text("a"), ws.AppendClose(nil, 1001, "", ws.Mask{}), text("b")), []string{"a"}, errWSClosed, nil)
	f("masked", frames(text("a"), ws.AppendFrame(nil, ws.OpText, []byte("b"), mask())), []string{"a"}, ws.ErrMasked, nil)
	f("too large", frames(text("a"), text(strings.Repeat("x", 1001))), []string{"a"}, &ws.TooLargeError{Limit: 1000}, nil)
	f("truncated", text("abc")[:3], nil, io.ErrUnexpectedEOF, nil)

	// Without wait, only what is buffered.
	c := &wsConn{}
	c.rd.Reset(bytes.NewReader(frames(text("a"), ping("p"))), ws.Client, 1000)
	if msg, ok, err := c.answer(false); ok || err != nil {
		t.Errorf("nothing read yet: %q, %v, %v", msg, ok, err)
	}
	if msg, ok, err := c.answer(true); string(msg) != "a" || !ok || err != nil {
		t.Errorf("waiting: %q, %v, %v", msg, ok, err)
	}
	if msg, ok, err := c.answer(false); ok || err != nil || len(c.pong) == 0 {
		t.Errorf("a ping buffered: %q, %v, %v, pong % x", msg, ok, err, c.pong)
	}
}

// sameWSErr reports whether err is want, or like it when it is a
// *ws.TooLargeError.
func sameWSErr(err, want error) bool {
	var got, tl *ws.TooLargeError
	if errors.As(want, &tl) {
		return errors.As(err, &got) && *got == *tl
	}
	return errors.Is(err, want)
}

// unmaskFrames returns the payloads of short client frames, unmasked.
func unmaskFrames(t *testing.T, b []byte) []byte {
	t.Helper()
	var out []byte
	for len(b) > 0 {
		if b[1]&0x80 == 0 || b[1]&0x7f > 125 {
			t.Fatalf("not a short masked frame: % x", b)
		}
		n := int(b[1] & 0x7f)
		p := bytes.Clone(b[6 : 6+n])
		ws.MaskWith(binary.LittleEndian.Uint32(b[2:6])).Apply(p)
		out = append(out, p...)
		b = b[6+n:]
	}
	return out
}

// TestWSSendCheckAllocs: framing a call, reading its answer's frame and
// checking it allocate nothing (TestSendCheckAllocs over WebSocket).
func TestWSSendCheckAllocs(t *testing.T) {
	reqs := wsMix(t, "all")
	w := newWindow(4, 16)
	var src replayReader
	c := &wsConn{}
	c.rd.Reset(&src, ws.Client, maxAnswer)
	msg := make([]byte, 0, 8192)
	out := make([]byte, 0, 8192)
	ans := make([]byte, 0, 8192)
	in := make([]byte, 0, 8192)
	for i := range reqs {
		req := &reqs[i]
		if req.Holes() == 0 {
			continue
		}
		allocs := testing.AllocsPerRun(100, func() {
			id := w.start(req, 1)
			msg = req.Append(msg[:0], id)
			out = ws.AppendFrame(out[:0], ws.OpText, msg, mask())
			ans = appendAnswer(ans[:0], req, id)
			in = serverFrame(in[:0], ws.OpText, true, ans)
			src.b = in
			got, ok, err := c.answer(true)
			if err != nil || !ok {
				t.Fatal(ok, err)
			}
			w.check(got, 2)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs per call", req.Name, allocs)
		}
	}
	if w.counts.Failed() != 0 || w.inflight() != 0 {
		t.Errorf("counts %+v, in flight %d", w.counts, w.inflight())
	}
}

// replayReader hands out b once.
type replayReader struct{ b []byte }

func (r *replayReader) Read(p []byte) (int, error) {
	n := copy(p, r.b)
	r.b = r.b[n:]
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
