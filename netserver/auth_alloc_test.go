//go:build !race

package netserver

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"testing"

	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/valyala/fasthttp"
)

// TestAuthAllocsPerCall: once a connection is authenticated, a call costs
// no allocation with authentication, the rules and the rate limit on
// (ServeStdio over an in-memory stream: rpc.authenticate, then n calls).
func TestAuthAllocsPerCall(t *testing.T) {
	n := allocCalls
	opts := &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t), RateLimit: 1e9, RateBurst: 1e9})}
	s := newServer(t, opts, authSetup(t)...)
	defer s.Shutdown(context.Background())
	stream := frame.AppendFrame(nil, frame.NDJSON, []byte(authCall(aliceToken)))
	for i := range n {
		method := "whoami_inline"
		if i%10 == 0 {
			method = "whoami" // on a worker
		}
		stream = frame.AppendFrame(stream, frame.NDJSON,
			[]byte(`{"jsonrpc":"2.0","method":"`+method+`","id":`+strconv.Itoa(i)+`}`))
	}
	var in bytes.Reader
	var out bytes.Buffer
	run := func() {
		in.Reset(stream)
		out.Reset()
		if err := s.ServeStdio(&in, &out); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if c := bytes.Count(out.Bytes(), []byte(`"alice/bearer"`)); c != n {
		t.Fatalf("%d of %d calls answered as alice", c, n)
	}
	allocs := testing.AllocsPerRun(10, run)
	if perCall := allocs / float64(n); perCall >= 0.01+perCallContext { // the calls' own contexts (alloc_test.go)
		t.Errorf("%.4f allocations per call (%.0f per run of %d)", perCall, allocs, n)
	}
	t.Logf("%.0f allocations per run of %d calls (the authentication's included)", allocs, n)
}

// TestAuthHTTPAllocs: a keep-alive HTTP connection that sends the same
// token again costs no allocation per request (authentication reused, rate
// limit, rules).
func TestAuthHTTPAllocs(t *testing.T) {
	opts := &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t), RateLimit: 1e9, RateBurst: 1e9}), Logger: quiet}
	s := NewHTTP(newEngine(t, authSetup(t)...), opts)
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	hc := &httpConn{Conn: a, set: &s.conns, lim: &s.lim}
	hc.ctx = withOrigin(s.ctx, s.e, HTTP, a.RemoteAddr())
	hc.admitConn()
	var ctx fasthttp.RequestCtx
	ctx.Init2(hc, nil, false)
	f := func(name, body string, status int, want string) {
		t.Helper()
		ctx.Request.Header.SetMethod(fasthttp.MethodPost)
		ctx.Request.Header.Set("Authorization", "Bearer "+aliceToken)
		ctx.Request.SetBodyString(body)
		run := func() {
			s.Handler(&ctx)
			if ctx.Response.StatusCode() != status || !bytes.Contains(ctx.Response.Body(), []byte(want)) {
				t.Fatalf("%s: %d %s, want %d %s", name, ctx.Response.StatusCode(), ctx.Response.Body(), status, want)
			}
			ctx.Response.Reset()
		}
		run()
		if n := testing.AllocsPerRun(200, run); n != 0 {
			t.Errorf("%s: %v allocations per request, want 0", name, n)
		}
	}
	f("inline", `{"jsonrpc":"2.0","method":"whoami_inline","id":1}`, 200, `"alice/bearer"`)
	f("worker", `{"jsonrpc":"2.0","method":"whoami","id":1}`, 200, `"alice/bearer"`)
	f("batch", `[{"jsonrpc":"2.0","method":"whoami_inline","id":1},{"jsonrpc":"2.0","method":"sum","params":[1],"id":2}]`,
		200, `"alice/bearer"`)
	f("denied", `{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":1}`, 200, `-32007`)
}
