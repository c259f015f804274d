package client_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// testTimeout bounds every wait of a test.
const testTimeout = 10 * time.Second

var quiet = slog.New(slog.DiscardHandler)

// stdioEnv, set to a framing name, makes the test binary a stdio server of
// the demo methods (see TestMain): the child process of NewStdio tests.
const stdioEnv = "JETRPC_CLIENT_TEST_STDIO_SERVER"

func TestMain(m *testing.M) {
	if kind := os.Getenv(stdioEnv); kind != "" {
		os.Exit(serveStdio(kind))
	}
	os.Exit(m.Run())
}

// serveStdio serves the demo methods on stdin/stdout until stdin ends.
func serveStdio(kind string) int {
	k, err := frame.ParseKind(kind)
	if err != nil {
		return 2
	}
	e := dispatch.New(&dispatch.Options{Logger: quiet})
	defer e.Close()
	if err := demo.Register(e); err != nil {
		return 1
	}
	s := netserver.New(e, &netserver.Options{Framing: k, Logger: quiet})
	// At the end of stdin (the client closed), calls still running are
	// cancelled rather than waited for, so that tests need not wait for
	// the sleep calls they abandoned.
	in := &eofHook{r: os.Stdin, hook: func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		s.Shutdown(ctx)
	}}
	if err := s.ServeStdio(in, os.Stdout); err != nil && !errors.Is(err, netserver.ErrServerClosed) {
		return 1
	}
	return 0
}

// shutdownGrace is how long the test servers wait for calls in flight when
// they shut down.
const shutdownGrace = 50 * time.Millisecond

// eofHook runs hook on a goroutine when r ends.
type eofHook struct {
	r    io.Reader
	hook func()
	once sync.Once
}

func (e *eofHook) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if err != nil {
		e.once.Do(func() { go e.hook() })
	}
	return n, err
}

// checkGoroutines fails the test if, after its cleanups, more goroutines run
// than before it started. Call it first, so that its cleanup runs last.
// fasthttp's process-wide goroutines, started once, do not count.
func checkGoroutines(t testing.TB) {
	t.Helper()
	before, _ := goroutines()
	t.Cleanup(func() {
		deadline := time.Now().Add(3 * time.Second)
		for {
			n, stacks := goroutines()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d goroutines before, %d after the test:\n%s", before, n, stacks)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// processWide names the goroutines that live as long as the process.
var processWide = []string{"fasthttp.updateServerDate", "fasthttp.(*TCPDialer).tcpAddrsClean"}

// goroutines counts the goroutines that are not process-wide and returns
// all stacks.
func goroutines() (int, []byte) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for g := range bytes.SplitSeq(buf, []byte("\n\n")) {
		if !slices.ContainsFunc(processWide, func(name string) bool { return bytes.Contains(g, []byte(name)) }) {
			count++
		}
	}
	return count, buf
}

func newEngine(t testing.TB) *dispatch.Engine {
	t.Helper()
	e := dispatch.New(&dispatch.Options{Logger: quiet})
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// tcpServer is a demo server on a loopback port (framing detected per
// connection); the cleanup shuts it down.
type tcpServer struct {
	*netserver.Server
	addr string
}

func startTCP(t testing.TB) *tcpServer {
	t.Helper()
	s := netserver.New(newEngine(t), &netserver.Options{Logger: quiet})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		s.Shutdown(ctx) // calls the test abandoned are cancelled
		select {
		case err := <-done:
			if !errors.Is(err, netserver.ErrServerClosed) {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(testTimeout):
			t.Error("Serve did not return after Shutdown")
		}
	})
	return &tcpServer{Server: s, addr: ln.Addr().String()}
}

// httpServer is a demo HTTP server on a loopback port.
type httpServer struct {
	*nethttp.HTTPServer
	url string
}

func startHTTP(t testing.TB) *httpServer {
	t.Helper()
	s := nethttp.New(newEngine(t), &netserver.Options{Logger: quiet})
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
	return &httpServer{HTTPServer: s, url: "http://" + ln.Addr().String() + "/rpc"}
}

// testOptions returns opts (or new ones) with a quiet logger and a short
// HTTP keep-alive, so that idle connections close soon.
func testOptions(opts *client.Options) *client.Options {
	o := client.Options{}
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = quiet
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = 100 * time.Millisecond
	}
	return &o
}

// closeOnCleanup closes c when the test ends and checks that Close works.
func closeOnCleanup(t testing.TB, c *client.Client) *client.Client {
	t.Helper()
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}

func dialTCP(t testing.TB, addr string, opts *client.Options) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := client.Dial(ctx, "tcp", addr, testOptions(opts))
	if err != nil {
		t.Fatal(err)
	}
	return closeOnCleanup(t, c)
}

// startStdio starts the test binary as a stdio server with the given
// framing and returns a client on it; the cleanup closes it, and checks
// Close unless the test kills the process.
func startStdio(t testing.TB, kind frame.Kind, opts *client.Options) (*client.Client, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), stdioEnv+"="+kind.String())
	o := testOptions(opts)
	o.Framing = kind
	c, err := client.NewStdio(cmd, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		err := c.Close()
		if err != nil && !strings.Contains(t.Name(), "killed") {
			t.Errorf("Close: %v", err)
		}
	})
	return c, cmd
}

// transport is a way to reach a demo server.
type transport struct {
	name string
	dial func(t *testing.T, opts *client.Options) *client.Client
}

func tcpTransport(kind frame.Kind) transport {
	return transport{"tcp-" + kind.String(), func(t *testing.T, opts *client.Options) *client.Client {
		s := startTCP(t)
		o := testOptions(opts)
		o.Framing = kind
		return dialTCP(t, s.addr, o)
	}}
}

// transports lists every transport and framing the tests run over.
var transports = []transport{
	tcpTransport(frame.NDJSON),
	tcpTransport(frame.Header),
	tcpTransport(frame.Len32),
	{"stdio-header", func(t *testing.T, opts *client.Options) *client.Client {
		c, _ := startStdio(t, frame.Header, opts)
		return c
	}},
	{"stdio-len32", func(t *testing.T, opts *client.Options) *client.Client {
		c, _ := startStdio(t, frame.Len32, opts)
		return c
	}},
	{"http", func(t *testing.T, opts *client.Options) *client.Client {
		s := startHTTP(t)
		c, err := client.DialHTTP(s.url, testOptions(opts))
		if err != nil {
			t.Fatal(err)
		}
		return closeOnCleanup(t, c)
	}},
}

// eachTransport runs f as a subtest over every transport.
func eachTransport(t *testing.T, f func(t *testing.T, c *client.Client)) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			checkGoroutines(t)
			f(t, tr.dial(t, nil))
		})
	}
}

// rawPeer is a hand-written peer on a loopback port that speaks NDJSON: it
// accepts one connection and runs serve on it. The cleanup closes both and
// waits for serve to return.
func rawPeer(t *testing.T, serve func(conn net.Conn, r *bufio.Reader)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	conns := make(chan net.Conn, 1)
	go func() {
		defer close(done)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		conns <- conn
		conn.SetDeadline(time.Now().Add(testTimeout))
		serve(conn, bufio.NewReader(conn))
	}()
	t.Cleanup(func() {
		ln.Close()
		select {
		case conn := <-conns:
			conn.Close()
		default:
		}
		select {
		case <-done:
		case <-time.After(testTimeout):
			t.Error("raw peer did not return")
		}
	})
	return ln.Addr().String()
}

// readLine reads one NDJSON message without its newline.
func readLine(t *testing.T, r *bufio.Reader) string {
	line, err := r.ReadString('\n')
	if err != nil {
		t.Errorf("peer read: %v", err)
		return ""
	}
	return line[:len(line)-1]
}

func writeLine(t *testing.T, conn net.Conn, msg string) {
	if _, err := conn.Write([]byte(msg + "\n")); err != nil {
		t.Errorf("peer write: %v", err)
	}
}

// waitClosed reads until the client closes the connection.
func waitClosed(r *bufio.Reader) {
	for {
		if _, err := r.ReadString('\n'); err != nil {
			return
		}
	}
}
