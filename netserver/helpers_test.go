package netserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
)

// testTimeout bounds every wait of a test.
const testTimeout = 10 * time.Second

var quiet = slog.New(slog.DiscardHandler)

// checkGoroutines fails the test if, after its cleanups, more goroutines run
// than before it started. Call it first, so that its cleanup runs last.
func checkGoroutines(t testing.TB) {
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

// engineSetup adjusts a test engine before it freezes.
type engineSetup func(e *dispatch.Engine) error

func newEngine(t testing.TB, setup ...engineSetup) *dispatch.Engine {
	t.Helper()
	return newEngineWith(t, dispatch.Options{}, setup...)
}

// newEngineWith is newEngine with the engine's options (Logger: quiet).
func newEngineWith(t testing.TB, opts dispatch.Options, setup ...engineSetup) *dispatch.Engine {
	t.Helper()
	opts.Logger = quiet
	e := dispatch.New(&opts)
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	for _, f := range setup {
		if err := f(e); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(e.Close)
	return e
}

func withMethod(m dispatch.Method) engineSetup {
	return func(e *dispatch.Engine) error { return e.RegisterMethod(m) }
}

type testServer struct {
	*Server
	addr  string
	serve chan error
}

// startServer serves a demo engine on a loopback port; the cleanup shuts it
// down and checks that Serve returned ErrServerClosed and no goroutine is
// left.
func startServer(t *testing.T, opts *Options, setup ...engineSetup) *testServer {
	t.Helper()
	checkGoroutines(t)
	return serveOn(t, newServer(t, opts, setup...))
}

// serveOn is startServer for a server the test configured further; call
// checkGoroutines before creating it.
func serveOn(t *testing.T, s *Server) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: s, addr: ln.Addr().String(), serve: make(chan error, 1)}
	go func() { ts.serve <- s.Serve(ln) }()
	t.Cleanup(func() { ts.shutdown(t) })
	return ts
}

func newServer(t testing.TB, opts *Options, setup ...engineSetup) *Server {
	t.Helper()
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = quiet
	}
	return New(newEngine(t, setup...), &o)
}

// shutdown shuts the server down (again) and checks how Serve ended.
func (ts *testServer) shutdown(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := ts.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	select {
	case err := <-ts.serve:
		if err != ErrServerClosed {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
		ts.serve <- err // for a later call
	case <-time.After(testTimeout):
		t.Error("Serve did not return after Shutdown")
	}
}

// openConns returns the number of connections the server tracks.
func (s *Server) openConns() int { return s.conns.len() }

// client speaks one framing over a connection or a pipe pair.
type client struct {
	t    testing.TB
	kind frame.Kind
	w    io.Writer
	fr   *frame.Reader
	nc   net.Conn // nil over pipes
}

func (ts *testServer) dial(t testing.TB, kind frame.Kind) *client {
	t.Helper()
	nc, err := net.DialTimeout("tcp", ts.addr, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, kind: kind, w: nc, nc: nc, fr: frame.NewReader(nc, kind, 0)}
}

// startStdio serves one stdio connection over io.Pipe pairs. The cleanup
// closes the client's input, and checks that ServeStdio returned nil.
func startStdio(t *testing.T, opts *Options, kind frame.Kind, setup ...engineSetup) (*Server, *client) {
	t.Helper()
	checkGoroutines(t)
	s := newServer(t, opts, setup...)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(inR, outW) }()
	// A watchdog turns a hung read into a failure instead of a hung test.
	dog := time.AfterFunc(testTimeout, func() { outR.CloseWithError(errors.New("test watchdog")) })
	t.Cleanup(func() {
		dog.Stop()
		inW.Close()
		go io.Copy(io.Discard, outR) // let the last writes finish
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(testTimeout):
			t.Error("ServeStdio did not return at EOF")
		}
		outR.Close()
		if err := s.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return s, &client{t: t, kind: kind, w: inW, fr: frame.NewReader(outR, kind, 0)}
}

func (c *client) send(msg string) {
	c.t.Helper()
	if _, err := c.w.Write(frame.AppendFrame(nil, c.kind, []byte(msg))); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

func (c *client) sendRaw(b string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, b); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// recv returns the next response frame (a copy).
func (c *client) recv() []byte {
	c.t.Helper()
	if c.nc != nil {
		c.nc.SetReadDeadline(time.Now().Add(testTimeout))
	}
	msg, err := c.fr.Next()
	if err != nil {
		c.t.Fatalf("recv: %v", err)
	}
	return bytes.Clone(msg)
}

func (c *client) call(msg string) []byte {
	c.t.Helper()
	c.send(msg)
	return c.recv()
}

// expectClosed checks that the server closes the connection (after any
// frames still due, which it skips).
func (c *client) expectClosed() {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(testTimeout))
	for {
		_, err := c.fr.Next()
		if err == nil {
			continue
		}
		if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err) {
			return
		}
		c.t.Fatalf("want the connection closed, got %v", err)
	}
}

func isReset(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "connection reset") || errors.Is(err, io.ErrUnexpectedEOF))
}

// response is a decoded response.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decodeResponse(t testing.TB, b []byte) response {
	t.Helper()
	var r response
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("response %q: %v", b, err)
	}
	return r
}

// expectResult checks a response's id and result.
func expectResult(t testing.TB, b []byte, id, result string) {
	t.Helper()
	r := decodeResponse(t, b)
	if string(r.ID) != id || r.Error != nil || string(r.Result) != result {
		t.Fatalf("got %s, want id %s result %s", b, id, result)
	}
}

// expectError checks a response's id and error code and returns its data.
func expectError(t testing.TB, b []byte, id string, code int) string {
	t.Helper()
	r := decodeResponse(t, b)
	if string(r.ID) != id || r.Error == nil || r.Error.Code != code {
		t.Fatalf("got %s, want id %s error %d", b, id, code)
	}
	return string(r.Error.Data)
}

// waitFor polls cond until it holds or the test times out.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var framings = []frame.Kind{frame.NDJSON, frame.Header, frame.Len32}

// recordMethod is a blocking (non-inline), ordered method that records the
// params it gets.
func recordMethod(mu *sync.Mutex, got *[]string) dispatch.Method {
	return dispatch.Method{Name: "record", Handler: dispatch.HandlerFunc(
		func(_ context.Context, params, dst []byte) ([]byte, error) {
			mu.Lock()
			*got = append(*got, string(params))
			mu.Unlock()
			return dst, nil
		})}
}

// countStarts counts the calls of method that have started.
func countStarts(method string, n *atomic.Int32) engineSetup {
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
