package netserver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver/internal/servertest"
	"github.com/valyala/fasthttp"
)

// The helpers shared with nethttp's tests (internal/servertest).
const testTimeout = servertest.Timeout

var quiet = servertest.Quiet

const wsSubtract = servertest.Subtract

type (
	engineSetup = servertest.EngineSetup
	response    = servertest.Response
)

var (
	checkGoroutines = servertest.CheckGoroutines
	withMethod      = servertest.WithMethod
	decodeResponse  = servertest.DecodeResponse
	expectResult    = servertest.ExpectResult
	expectError     = servertest.ExpectError
	waitFor         = servertest.WaitFor
	dialWS          = servertest.DialWS
	wsSend          = servertest.WSSend
	wsRecv          = servertest.WSRecv
	wsExpectClose   = servertest.WSExpectClose
	recordMethod    = servertest.RecordMethod
	countStarts     = servertest.CountStarts
)

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

var framings = []frame.Kind{frame.NDJSON, frame.Header, frame.Len32}

var warmWS sync.Once

// wsServer is an HTTP server under test (nethttp's, see export_test.go)
// with the number of its open WebSocket connections, which its Observer
// counts.
type wsServer struct {
	servertest.Server
	open atomic.Int32
}

func (s *wsServer) openWS() int { return int(s.open.Load()) }

// warmFasthttp starts fasthttp's process-wide date refresher, which never
// ends, before a test counts its goroutines.
func warmFasthttp() {
	warmWS.Do(func() {
		var h fasthttp.ResponseHeader
		h.AppendBytes(nil)
	})
}

// startWS serves a demo engine with nethttp's HTTPServer on loopback and
// returns it and its WebSocket URL. The cleanup shuts it down, checks that
// Serve returned ErrServerClosed and that no goroutine is left.
func startWS(t *testing.T, opts *Options, setup ...engineSetup) (*wsServer, string) {
	t.Helper()
	warmFasthttp()
	checkGoroutines(t)
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = quiet
	}
	s := &wsServer{}
	obs := o.Observer
	o.Observer = ObserverFunc(func(tr Transport, ev ConnEvent) {
		switch {
		case tr == WS && ev == ConnOpened:
			s.open.Add(1)
		case tr == WS && ev == ConnClosed:
			s.open.Add(-1)
		}
		if obs != nil {
			obs.ObserveConn(tr, ev)
		}
	})
	s.Server = NewHTTPTest(newEngine(t, setup...), &o)
	return s, "ws://" + servertest.Serve(t, s.Server, ErrServerClosed) + "/ws"
}

// newEngine returns an engine with the demo methods, then setup.
func newEngine(t testing.TB, setup ...engineSetup) *dispatch.Engine {
	t.Helper()
	return newEngineWith(t, dispatch.Options{}, setup...)
}

// newEngineWith is newEngine with the engine's options (Logger: quiet).
func newEngineWith(t testing.TB, opts dispatch.Options, setup ...engineSetup) *dispatch.Engine {
	t.Helper()
	return servertest.NewEngine(t, opts, append([]engineSetup{demo.Register}, setup...)...)
}
