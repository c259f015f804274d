package nethttp_test

// NOTE: shared harness of the HTTP tests. Each start function runs one of the
// two HTTP servers over loopback with the demo methods and registers, in
// order, a goroutine-leak check, the engine's Close, the server's shutdown
// and the client's idle-connection close; t.Cleanup runs them in reverse.
// The httpSuite functions hold the behaviour both servers must share.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/valyala/fasthttp"
)

// httpTarget is a running server and a client of its own.
type httpTarget struct {
	t       *testing.T
	url     string
	client  *http.Client
	started chan string // names of the methods whose handlers began, in order
	stop    func(ctx context.Context) error
}

// httpStart starts one kind of HTTP server.
type httpStart func(t *testing.T, opts *netserver.Options) *httpTarget

// startFastHTTP runs an HTTPServer.
func startFastHTTP(t *testing.T, opts *netserver.Options) *httpTarget {
	t.Helper()
	e, started := newHTTPEngine(t)
	s := nethttp.New(e, opts)
	return serveHTTP(t, started, s.Serve, s.Shutdown, netserver.ErrServerClosed)
}

// startStdHTTP runs Handler in a net/http server.
func startStdHTTP(t *testing.T, opts *netserver.Options) *httpTarget {
	t.Helper()
	e, started := newHTTPEngine(t)
	s := &http.Server{Handler: nethttp.Handler(e, opts), ReadHeaderTimeout: 5 * time.Second}
	return serveHTTP(t, started, s.Serve, s.Shutdown, http.ErrServerClosed)
}

// serveHTTP runs serve on a loopback listener and stops it with shutdown.
func serveHTTP(t *testing.T, started chan string, serve func(net.Listener) error,
	shutdown func(context.Context) error, closedErr error) *httpTarget {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve(ln) }()
	var once sync.Once
	stop := func(ctx context.Context) (err error) {
		once.Do(func() {
			err = shutdown(ctx)
			select {
			case serr := <-done:
				if !errors.Is(serr, closedErr) {
					t.Errorf("Serve returned %v, want %v", serr, closedErr)
				}
			case <-time.After(5 * time.Second):
				t.Error("Serve did not return after Shutdown")
			}
		})
		return err
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stop(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	t.Cleanup(tr.CloseIdleConnections)
	return &httpTarget{
		t:       t,
		url:     "http://" + ln.Addr().String() + "/",
		client:  &http.Client{Transport: tr, Timeout: 10 * time.Second},
		started: started,
		stop:    stop,
	}
}

// newHTTPEngine returns an engine with the demo methods whose handlers
// report their start on the returned channel (when it has room), and checks
// for leaked goroutines once the test's other cleanups have run.
func newHTTPEngine(t *testing.T) (*dispatch.Engine, chan string) {
	t.Helper()
	httpNoLeaks(t)
	started := make(chan string, 16)
	e := dispatch.New(&dispatch.Options{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(e.Close)
	report := func(method string, next dispatch.Handler) dispatch.Handler {
		return dispatch.HandlerFunc(func(ctx context.Context, params, dst []byte) ([]byte, error) {
			select {
			case started <- method:
			default:
			}
			return next.ServeRPC(ctx, params, dst)
		})
	}
	if err := e.Use(report); err != nil {
		t.Fatal(err)
	}
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	return e, started
}

var warmFastHTTP sync.Once

// httpNoLeaks fails the test if, after its cleanups, the number of
// goroutines does not come back to what it is now within a bounded poll.
func httpNoLeaks(t *testing.T) {
	t.Helper()
	warmFastHTTP.Do(func() { // start fasthttp's process-wide date refresher now
		var h fasthttp.ResponseHeader
		h.AppendBytes(nil)
	})
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Errorf("goroutines: %d before, %d after\n%s", before, n, buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// httpReply is one HTTP response, read whole.
type httpReply struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request to path and reads the whole response. A nil body
// sends none; chunked hides the length so that the request goes out with
// Transfer-Encoding: chunked.
func (h *httpTarget) do(method, path string, body []byte, chunked bool) (httpReply, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
		if chunked {
			rd = io.MultiReader(rd)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, h.url+path, rd)
	if err != nil {
		return httpReply{}, err
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return httpReply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return httpReply{status: resp.StatusCode, header: resp.Header, body: b}, err
}

// post sends a JSON-RPC message and fails the test on a transport error.
func (h *httpTarget) post(msg string) httpReply {
	h.t.Helper()
	r, err := h.do(http.MethodPost, "", []byte(msg), false)
	if err != nil {
		h.t.Fatalf("POST %s: %v", msg, err)
	}
	return r
}

// wantCall checks a 200 with a JSON body containing want.
func (r httpReply) wantCall(t *testing.T, want string) {
	t.Helper()
	if r.status != http.StatusOK || !strings.Contains(string(r.body), want) {
		t.Errorf("got %d %s, want 200 with %s", r.status, r.body, want)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
}

// awaitStart waits until the handler of method has begun.
func (h *httpTarget) awaitStart(method string) {
	h.t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case m := <-h.started:
			if m == method {
				return
			}
		case <-timeout:
			h.t.Fatalf("%s did not start", method)
		}
	}
}
