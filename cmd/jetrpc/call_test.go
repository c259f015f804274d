package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/valyala/fasthttp"
)

// callServers are the demo methods served in-process on loopback over TCP
// (framing auto) and HTTP (WebSocket at /ws), plus "note", whose params go
// to notes.
type callServers struct {
	tcp, http string // host:port
	notes     chan string
}

func (s *callServers) httpURL() string { return "http://" + s.http + "/" }
func (s *callServers) wsURL() string   { return "ws://" + s.http + "/ws" }

// startCallServers starts the servers; the test's cleanup stops them.
func startCallServers(t *testing.T) *callServers {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := dispatch.New(&dispatch.Options{Logger: quiet})
	t.Cleanup(e.Close)
	s := &callServers{notes: make(chan string, 8)}
	note := func(_ context.Context, params, dst []byte) ([]byte, error) {
		s.notes <- string(params)
		return append(dst, "null"...), nil
	}
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	if err := e.RegisterMethod(dispatch.Method{Name: "note", Handler: dispatch.HandlerFunc(note), Inline: true}); err != nil {
		t.Fatal(err)
	}
	opts := &netserver.Options{Logger: quiet}
	raw, web := netserver.New(e, opts), nethttp.New(e, opts)
	s.tcp = serveOn(t, raw.Serve, raw.Shutdown)
	s.http = serveOn(t, web.Serve, web.Shutdown)
	return s
}

// serveOn serves on a free loopback port until the test ends and returns
// the address.
func serveOn(t *testing.T, serve func(net.Listener) error, shutdown func(context.Context) error) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		serve(ln)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shutdown(ctx)
		<-done
	})
	return ln.Addr().String()
}

// noLeaksHTTP is noLeaks for a test whose client dials with fasthttp: it
// first starts fasthttp's process-wide DNS cache cleaner, which a dial
// starts and which runs until the cache entries expire (a minute).
func noLeaksHTTP(t *testing.T) {
	t.Helper()
	if c, err := fasthttp.Dial(refusedAddr(t)); err == nil {
		c.Close()
	}
	noLeaks(t)
}

// runCallCmd runs "jetrpc call args..." with stdin and returns the exit
// code and what it printed.
func runCallCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code = run(ctx, append([]string{"call"}, args...), strings.NewReader(stdin), &out, &errs)
	return code, out.String(), errs.String()
}

// refusedAddr returns a loopback address nobody listens on.
func refusedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestCallResults: calls that succeed print the raw result and nothing
// else, over every transport and framing.
func TestCallResults(t *testing.T) {
	noLeaksHTTP(t)
	s := startCallServers(t)
	f := func(stdin, want string, args ...string) {
		t.Helper()
		code, stdout, stderr := runCallCmd(t, stdin, args...)
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("call %q: exit %d, stdout %q, stderr %q; want exit 0, stdout %q", args, code, stdout, stderr, want)
		}
	}
	f("", "19\n", "--tcp", s.tcp, "subtract", "[42,23]")
	f("", "19\n", "--tcp", s.tcp, "--framing", "ndjson", "subtract", "[42,23]")
	f("", "19\n", "--tcp", s.tcp, "--framing", "header", "subtract", "[42,23]")
	f("", "19\n", "--tcp", s.tcp, "--framing", "len32", "subtract", "[42,23]")
	f("", "19\n", "--http", s.httpURL(), "subtract", "[42,23]")
	f("", "19\n", "--ws", s.wsURL(), "subtract", "[42,23]")
	f("", "19\n", "--http", s.http, "subtract", "[42,23]") // http://host:port/
	f("", "19\n", "--ws", s.http, "subtract", "[42,23]")   // ws://host:port/ws
	f("", "19\n", "--tcp", s.tcp, "subtract", `{"subtrahend":23,"minuend":42}`)
	f("", "19\n", "--http", s.httpURL(), "subtract", `{"subtrahend":23,"minuend":42}`)
	f(" [42, 23]\n", "19\n", "--tcp", s.tcp, "subtract", "-")
	f(`{"minuend":42,"subtrahend":23}`, "19\n", "--ws", s.wsURL(), "subtract", "-")
	f("", "null\n", "--tcp", s.tcp, "echo") // no params: left out
	f("", `{"a": [1, 2.50]}`+"\n", "--tcp", s.tcp, "echo", `{"a": [1, 2.50]}`)
	f("", `["hello",5]`+"\n", "--http", s.httpURL(), "get_data")
	f("", "1\n", "--tcp", s.tcp, "--timeout", "5s", "sleep", "[1]")
}

// TestCallNotify: --notify sends a notification, prints nothing and exits 0.
func TestCallNotify(t *testing.T) {
	noLeaksHTTP(t)
	s := startCallServers(t)
	f := func(want string, args ...string) {
		t.Helper()
		code, stdout, stderr := runCallCmd(t, "", args...)
		if code != 0 || stdout != "" || stderr != "" {
			t.Errorf("call %q: exit %d, stdout %q, stderr %q; want exit 0 and no output", args, code, stdout, stderr)
		}
		select {
		case got := <-s.notes:
			if got != want {
				t.Errorf("call %q: server got params %q, want %q", args, got, want)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("call %q: the server got no notification", args)
		}
	}
	f(`{"x":1}`, "--tcp", s.tcp, "--notify", "note", `{"x":1}`)
	f(`[1,2]`, "--tcp", s.tcp, "--framing", "len32", "--notify", "note", `[1,2]`)
	f(`[3]`, "--http", s.httpURL(), "--notify", "note", `[3]`)
	f(`[4]`, "--ws", s.wsURL(), "--notify", "note", `[4]`)
	f(``, "--http", s.httpURL(), "--notify", "note")
}

// TestCallErrors: an error response, a server that is not there and a
// timeout exit 1 with one line on stderr.
func TestCallErrors(t *testing.T) {
	noLeaksHTTP(t)
	s := startCallServers(t)
	f := func(want string, args ...string) {
		t.Helper()
		code, stdout, stderr := runCallCmd(t, "", args...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("call %q: exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", args, code, stdout, stderr, want)
		}
	}
	failParams := `{"code":-32001,"message":"boom","data":{"why":[1, 2]}}`
	failLine := "jetrpc: call: fail: error -32001: boom (data: {\"why\":[1, 2]})\n"
	f(failLine, "--tcp", s.tcp, "fail", failParams)
	f(failLine, "--http", s.httpURL(), "fail", failParams)
	f(failLine, "--ws", s.wsURL(), "fail", failParams)
	f("jetrpc: call: fail: error 7: no data\n", "--tcp", s.tcp, "fail", `{"code":7,"message":"no data"}`)
	f("jetrpc: call: nope: error -32601: Method not found\n", "--tcp", s.tcp, "nope", "[]")
	f("jetrpc: call: nope: error -32601: Method not found\n", "--http", s.httpURL(), "nope")
	f("jetrpc: call: subtract: error -32602: Invalid params (data: ", "--tcp", s.tcp, "subtract", "[1]")
	f("jetrpc: call: sleep: timed out after 100ms (--timeout)\n", "--tcp", s.tcp, "--timeout", "100ms", "sleep", "[1000]")
	f("jetrpc: call: sleep: timed out after 100ms (--timeout)\n", "--http", s.httpURL(), "--timeout", "100ms", "sleep", "[1000]")

	off := refusedAddr(t)
	f("jetrpc: call: "+off+": dial tcp "+off+": connect: connection refused\n", "--tcp", off, "subtract", "[42,23]")
	f("connection refused", "--tcp", off, "--notify", "note", "[1]")
	f("connection refused", "--http", off, "subtract", "[42,23]")
	f("connection refused", "--http", off, "--notify", "note")
	f("connection refused", "--ws", off, "subtract", "[42,23]")
	f("HTTP status 405", "--ws", "ws://"+s.http+"/nows", "subtract", "[42,23]")
}

// TestCallInbound: what the server sends on its own is printed to stderr,
// "<- " and the JSON, and its calls are answered -32601.
func TestCallInbound(t *testing.T) {
	noLeaks(t)
	s := startCallServers(t)
	for _, target := range [][]string{{"--tcp", s.tcp}, {"--tcp", s.tcp, "--framing", "header"}, {"--ws", s.wsURL()}} {
		code, stdout, stderr := runCallCmd(t, "", append(target, "--listen", "200ms", "subscribe", "[2]")...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if code != 0 || stdout != "2\n" || len(lines) != 2 {
			t.Errorf("%q subscribe: exit %d, stdout %q, stderr %q; want exit 0, 2 and two lines", target, code, stdout, stderr)
			continue
		}
		for i, line := range lines {
			want := `<- {"jsonrpc":"2.0","method":"subscription","params":{"subscription":1,"result":` + string(rune('1'+i)) + `}}`
			if line != want {
				t.Errorf("%q subscribe: line %d: %q, want %q", target, i, line, want)
			}
		}

		// callback makes the server call "ping" on us: answered -32601.
		code, stdout, stderr = runCallCmd(t, "", append(target, "callback", `["ping",[1]]`)...)
		want := `<- {"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}` + "\n" +
			"jetrpc: call: callback: error -32601: Method not found\n"
		if code != 1 || stdout != "" || stderr != want {
			t.Errorf("%q callback: exit %d, stdout %q, stderr %q; want exit 1 and %q", target, code, stdout, stderr, want)
		}
	}
}

// TestCallUsage: bad command lines exit 2 naming the problem and touch no
// network.
func TestCallUsage(t *testing.T) {
	f := func(stdin, want string, args ...string) {
		t.Helper()
		code, stdout, stderr := runCallCmd(t, stdin, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, want) {
			t.Errorf("call %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, stdout, stderr, want)
		}
	}
	f("", "jetrpc: call: missing METHOD")
	f("", "jetrpc: call: missing METHOD", "--tcp", "127.0.0.1:1")
	f("", "METHOD is empty", "")
	f("", "--tcp and --http: give at most one target", "--tcp", "127.0.0.1:1", "--http", "127.0.0.1:2", "m")
	f("", "--http and --ws: give at most one target", "--ws", "127.0.0.1:1", "--http", "127.0.0.1:2", "m")
	f("", "--tcp and --http and --ws: give at most one target", "--tcp", "a:1", "--ws", "b:1", "--http", "c:2", "m")
	f("", "--framing json: must be ndjson, header or len32", "--framing", "json", "m")
	f("", "--framing auto: must be ndjson, header or len32", "--framing", "auto", "m")
	f("", "--framing with --http: the framing applies to --tcp only", "--http", "127.0.0.1:1", "--framing", "ndjson", "m")
	f("", "--framing with --ws: the framing applies to --tcp only", "--ws", "127.0.0.1:1", "--framing", "len32", "m")
	f("", "--listen with --http: the server cannot send on its own over HTTP", "--http", "127.0.0.1:1", "--listen", "1s", "m")
	f("", "--listen -1s: must not be negative", "--listen", "-1s", "m")
	f("", "--timeout 0s: must be positive", "--timeout", "0", "m")
	f("", `invalid value "soon" for flag -timeout`, "--timeout", "soon", "m")
	f("", "flag provided but not defined: -frob", "--frob", "m")
	f("", `--tcp "nonsense": address nonsense: missing port in address`, "--tcp", "nonsense", "m")
	f("", "--http ftp://h:1/: want an http:// or https:// URL with a host", "--http", "ftp://h:1/", "m")
	f("", "--http http:///x: want an http:// or https:// URL with a host", "--http", "http:///x", "m")
	f("", "--ws http://h:1/ws: want a ws:// or wss:// URL with a host", "--ws", "http://h:1/ws", "m")
	f("", "params: want a JSON array or object", "m", "42")
	f("", "params: want a JSON array or object", "m", `"text"`)
	f("", "params: want a JSON array or object", "m", " null ")
	f("", "params: invalid JSON at offset 3", "m", "[1,,2]")
	f("", "params: invalid JSON at offset 0", "m", "subtract")
	f("", "params: invalid JSON at offset 4: decode: unexpected end of input", "m", "[1,2")
	f("", "params: invalid JSON at offset 5", "m", `[1,2]x`)
	f("", "params: empty; want a JSON array or object", "m", "")
	f("", "params: empty; want a JSON array or object", "m", "-")
	f("42\n", "params: want a JSON array or object", "m", "-")
	f("{\"a\":", "params: invalid JSON at offset 5: decode: unexpected end of input", "m", "-")
	f("", `unexpected argument "x"`, "m", "[1]", "x")
	f("", `unexpected argument "--tcp" (flags go before METHOD)`, "m", "[1]", "--tcp", "127.0.0.1:1")

	code, stdout, stderr := runCallCmd(t, "", "-h")
	for _, want := range []string{"Usage: jetrpc call [flags] METHOD [PARAMS]", "--tcp ADDR", "--http URL", "--ws URL",
		"--framing KIND", "--notify", "--timeout D", "--listen D", "jetrpc call subtract '[42,23]'"} {
		if code != 0 || stdout != "" || !strings.Contains(stderr, want) {
			t.Errorf("call -h: exit %d, stdout %q; want exit 0 and %q in stderr:\n%s", code, stdout, want, stderr)
		}
	}
}
