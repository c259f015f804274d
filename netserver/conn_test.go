package netserver

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
)

const subtractCall = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}`

// TestOversizedFrame: a frame over the limit is answered with -32600 and
// skipped; the next call on the connection is answered.
func TestOversizedFrame(t *testing.T) {
	big := `{"jsonrpc":"2.0","method":"echo","params":"` + strings.Repeat("x", 1000) + `","id":1}`
	for _, kind := range framings {
		t.Run(kind.String(), func(t *testing.T) {
			ts := startServer(t, &Options{MaxMessage: 256})
			c := ts.dial(t, kind)
			c.send(big)
			c.send(subtractCall)
			data := expectError(t, c.recv(), "null", -32600)
			if data != `"message larger than 256 bytes"` {
				t.Errorf("error data %s", data)
			}
			expectResult(t, c.recv(), "2", "19")
		})
	}
}

func TestOversizedFrameStdio(t *testing.T) {
	_, c := startStdio(t, &Options{MaxMessage: 64}, frame.Len32)
	c.send(`{"jsonrpc":"2.0","method":"echo","params":"` + strings.Repeat("x", 100) + `","id":1}`)
	expectError(t, c.recv(), "null", -32600)
	expectResult(t, c.call(subtractCall), "2", "19")
}

// TestBrokenHeader: a header block that cannot be parsed is answered with
// -32700, then the connection is closed; other connections work.
func TestBrokenHeader(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.dial(t, frame.Header)
	c.sendRaw("Content-Length: abc\r\n\r\n{}")
	data := expectError(t, c.recv(), "null", -32700)
	if !strings.Contains(data, "Content-Length") {
		t.Errorf("error data %s does not name the problem", data)
	}
	c.expectClosed()
	expectResult(t, ts.dial(t, frame.Header).call(subtractCall), "2", "19")
}

// TestBrokenHeaderInFlight: calls in flight when the framing breaks are
// still answered before the connection closes.
func TestBrokenHeaderInFlight(t *testing.T) {
	ts := startServer(t, &Options{Framing: frame.Header})
	c := ts.dial(t, frame.Header)
	c.send(`{"jsonrpc":"2.0","method":"sleep","params":[100],"id":1}`)
	c.sendRaw("Content-Length: 1\r\nbroken line\r\n\r\n")
	expectError(t, c.recv(), "null", -32700)
	expectResult(t, c.recv(), "1", "100")
	c.expectClosed()
}

// TestDisconnectMidFrame: a client leaving in the middle of a frame leaves
// nothing behind (the goroutine check) and others are served.
func TestDisconnectMidFrame(t *testing.T) {
	for _, kind := range framings {
		t.Run(kind.String(), func(t *testing.T) {
			ts := startServer(t, nil)
			c := ts.dial(t, kind)
			f := frame.AppendFrame(nil, kind, []byte(subtractCall))
			c.sendRaw(string(f[:len(f)-5]))
			c.nc.Close()
			waitFor(t, "the connection to end", func() bool { return ts.openConns() == 0 })
			expectResult(t, ts.dial(t, kind).call(subtractCall), "2", "19")
		})
	}
}

// TestNeverReadingClient: a client that sends without reading its
// responses cannot make the server buffer more than MaxPending plus what the
// calls in flight add (one response when they run inline), and is dropped
// after WriteTimeout; others are unaffected.
func TestNeverReadingClient(t *testing.T) {
	slowEcho := withMethod(dispatch.Method{Name: "slow_echo", Handler: dispatch.HandlerFunc(
		func(_ context.Context, params, dst []byte) ([]byte, error) { return append(dst, params...), nil })})
	for _, method := range []string{"echo", "slow_echo"} {
		t.Run(method, func(t *testing.T) { testNeverReading(t, method, slowEcho) })
	}
}

func testNeverReading(t *testing.T, method string, setup engineSetup) {
	const maxPending, maxInFlight = 64 << 10, 4
	var peak atomic.Int64
	checkGoroutines(t)
	s := newServer(t, &Options{MaxPending: maxPending, MaxInFlight: maxInFlight,
		WriteTimeout: 200 * time.Millisecond}, setup)
	s.lim.testHookPending = func(n int64) {
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
	}
	ts := serveOn(t, s)
	c := ts.dial(t, frame.NDJSON)
	msg := frame.AppendFrame(nil, frame.NDJSON,
		[]byte(`{"jsonrpc":"2.0","method":"`+method+`","params":["`+strings.Repeat("y", 1000)+`"],"id":1}`))
	done := make(chan struct{})
	go func() { // writes until the server drops the connection
		defer close(done)
		c.nc.SetWriteDeadline(time.Now().Add(testTimeout))
		for range (256 << 20) / len(msg) {
			if _, err := c.nc.Write(msg); err != nil {
				return
			}
		}
		t.Error("the server never stopped reading")
	}()
	p := probeTCP(t, ts.addr)
	<-done
	reportProbe(t, p, "a client that never reads ("+method+")")
	waitFor(t, "the connection to be dropped", func() bool { return ts.openConns() == 1 })
	bound := int64(maxPending + len(msg) + 100)
	if method != "echo" {
		bound += maxInFlight * int64(len(msg)+100)
	}
	if p := peak.Load(); p > bound || p == 0 {
		t.Errorf("pending bytes reached %d, bound %d", p, bound)
	}
	t.Logf("peak pending bytes: %d", peak.Load())
}

// TestMaxPendingInput: the copies of messages running on workers count
// against MaxPending, so large slow calls cannot pin MaxInFlight times
// MaxMessage bytes: at most MaxPending/size + 1 of them run at once.
func TestMaxPendingInput(t *testing.T) {
	const maxPending, size, calls = 256 << 10, 64 << 10, 20
	var running, peak atomic.Int32
	gauge := func(e *dispatch.Engine) error {
		return e.Use(func(_ string, next dispatch.Handler) dispatch.Handler {
			return dispatch.HandlerFunc(func(ctx context.Context, params, dst []byte) ([]byte, error) {
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				defer running.Add(-1)
				return next.ServeRPC(ctx, params, dst)
			})
		})
	}
	ts := startServer(t, &Options{MaxPending: maxPending}, gauge)
	c := ts.dial(t, frame.NDJSON)
	msg := `{"jsonrpc":"2.0","method":"sleep","params":[20],"id":1,"pad":"` + strings.Repeat("p", size) + `"}`
	go func() {
		for range calls {
			c.nc.Write(frame.AppendFrame(nil, frame.NDJSON, []byte(msg)))
		}
	}()
	for range calls {
		expectResult(t, c.recv(), "1", "20")
	}
	if p := peak.Load(); p > maxPending/size+1 {
		t.Errorf("%d calls of %d bytes ran at once, MaxPending %d", p, size, maxPending)
	}
	t.Logf("at most %d calls of %d KiB ran at once (MaxPending %d KiB)", peak.Load(), size>>10, maxPending>>10)
}

// TestMaxInFlight: at MaxInFlight tasks the connection stops reading, so a
// cheap call behind two slow ones is answered only after one of them.
func TestMaxInFlight(t *testing.T) {
	ts := startServer(t, &Options{MaxInFlight: 2})
	c := ts.dial(t, frame.NDJSON)
	c.send(`{"jsonrpc":"2.0","method":"sleep","params":[100],"id":1}`)
	c.send(`{"jsonrpc":"2.0","method":"sleep","params":[100],"id":3}`)
	c.send(subtractCall)
	if r := decodeResponse(t, c.recv()); string(r.ID) == "2" {
		t.Fatal("the call behind MaxInFlight slow calls was read at once")
	}
	ids := map[string]bool{}
	for range 2 {
		ids[string(decodeResponse(t, c.recv()).ID)] = true
	}
	if !ids["2"] {
		t.Fatalf("call 2 not answered: %v", ids)
	}
}

// TestOverloaded: with every worker busy a call is answered with -32001 at
// once, a batch with one error per call; ordered notifications still run.
func TestOverloaded(t *testing.T) {
	var mu sync.Mutex
	var got []string
	var sleeps atomic.Int32
	checkGoroutines(t)
	e := dispatch.New(&dispatch.Options{Logger: quiet, MaxWorkers: 1})
	for _, f := range []engineSetup{demo.Register, withMethod(recordMethod(&mu, &got)), countStarts("sleep", &sleeps)} {
		if err := f(e); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(e.Close)
	ts := serveOn(t, New(e, &Options{Logger: quiet}))
	c := ts.dial(t, frame.NDJSON)
	c.send(`{"jsonrpc":"2.0","method":"sleep","params":[300],"id":1}`)
	waitFor(t, "the worker to be busy", func() bool { return sleeps.Load() == 1 })
	expectError(t, c.call(`{"jsonrpc":"2.0","method":"sleep","params":[1],"id":2}`), "2", -32001)
	batch := c.call(`[{"jsonrpc":"2.0","method":"sleep","params":[1],"id":3},{"jsonrpc":"2.0","method":"update"},1]`)
	if want := `[{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"Server overloaded"}},` +
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"message must be an object"}}]`; string(batch) != want {
		t.Errorf("batch answer\n got %s\nwant %s", batch, want)
	}
	c.send(`{"jsonrpc":"2.0","method":"record","params":[1]}`)
	waitFor(t, "the notification", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 1 })
	expectResult(t, c.recv(), "1", "300")
}

func TestIdleTimeout(t *testing.T) {
	ts := startServer(t, &Options{IdleTimeout: 100 * time.Millisecond})
	c := ts.dial(t, frame.NDJSON)
	expectResult(t, c.call(subtractCall), "2", "19")
	c.expectClosed()
}

// TestIdleTimeoutBusy: a call in flight longer than IdleTimeout keeps the
// connection open.
func TestIdleTimeoutBusy(t *testing.T) {
	ts := startServer(t, &Options{IdleTimeout: 50 * time.Millisecond})
	c := ts.dial(t, frame.NDJSON)
	expectResult(t, c.call(`{"jsonrpc":"2.0","method":"sleep","params":[300],"id":1}`), "1", "300")
	c.expectClosed()
}

// TestReadTimeout: a frame left incomplete for ReadTimeout ends the
// connection, also when its first bytes came in the read that was waiting
// with IdleTimeout.
func TestReadTimeout(t *testing.T) {
	ts := startServer(t, &Options{ReadTimeout: 100 * time.Millisecond})
	c := ts.dial(t, frame.Len32)
	c.sendRaw("\x00\x00\x00\x40{\"jsonrpc\"")
	c.expectClosed()
}

func TestMaxConns(t *testing.T) {
	ts := startServer(t, &Options{MaxConns: 2})
	a, b := ts.dial(t, frame.NDJSON), ts.dial(t, frame.NDJSON)
	expectResult(t, a.call(subtractCall), "2", "19")
	expectResult(t, b.call(subtractCall), "2", "19")
	over := ts.dial(t, frame.NDJSON)
	over.expectClosed()
	expectResult(t, a.call(subtractCall), "2", "19")
	expectResult(t, b.call(subtractCall), "2", "19")
}

// TestIdleRelease: a connection silent for idleRelease gives its buffers
// back and then serves as before on every framing, including a frame whose
// first byte is what wakes it (read without a buffer) and the rest of which
// comes later; a frame stalled after that first byte is still cut off by
// ReadTimeout.
func TestIdleRelease(t *testing.T) {
	for _, kind := range framings {
		t.Run(kind.String(), func(t *testing.T) {
			var released atomic.Int32
			checkGoroutines(t)
			s := newServer(t, &Options{ReadTimeout: 200 * time.Millisecond})
			s.idleRelease = 20 * time.Millisecond
			s.testHookRelease = func(c *conn) {
				if c.fr == nil && c.local == nil && c.out.Out == nil {
					released.Add(1)
				}
			}
			ts := serveOn(t, s)
			c := ts.dial(t, kind)
			expectResult(t, c.call(subtractCall), "2", "19")
			waitFor(t, "the buffers to be released", func() bool { return released.Load() == 1 })
			expectResult(t, c.call(subtractCall), "2", "19")
			waitFor(t, "the buffers to be released again", func() bool { return released.Load() == 2 })
			f := frame.AppendFrame(nil, kind, []byte(subtractCall))
			c.sendRaw(string(f[:1]))
			time.Sleep(50 * time.Millisecond)
			c.sendRaw(string(f[1:]))
			expectResult(t, c.recv(), "2", "19")
			waitFor(t, "the buffers to be released a third time", func() bool { return released.Load() == 3 })
			c.sendRaw(string(f[:1]))
			start := time.Now()
			c.expectClosed()
			if d := time.Since(start); d < 150*time.Millisecond {
				t.Errorf("a stalled frame was cut off after %v, ReadTimeout 200ms", d)
			}
		})
	}
}

// TestIdleReleaseMidSkip: an idle spell that begins while an oversized
// frame is being skipped keeps the reader's place: the rest of that frame
// is still skipped, and the next frame is answered.
func TestIdleReleaseMidSkip(t *testing.T) {
	for _, kind := range framings {
		t.Run(kind.String(), func(t *testing.T) {
			checkGoroutines(t)
			s := newServer(t, &Options{MaxMessage: 64, ReadTimeout: -1})
			s.idleRelease = 20 * time.Millisecond
			ts := serveOn(t, s)
			c := ts.dial(t, kind)
			huge := frame.AppendFrame(nil, kind, []byte(`["`+strings.Repeat("x", 200)+`"]`))
			c.sendRaw(string(huge[:150]))
			expectError(t, c.recv(), "null", -32600)
			time.Sleep(100 * time.Millisecond) // several idle releases
			c.sendRaw(string(huge[150:]))
			time.Sleep(50 * time.Millisecond)
			c.send(subtractCall)
			expectResult(t, c.recv(), "2", "19")
		})
	}
}
