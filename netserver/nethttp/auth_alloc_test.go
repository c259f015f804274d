//go:build !race

package nethttp

import (
	"bytes"
	"net"
	"testing"

	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/valyala/fasthttp"
)

// TestAuthHTTPAllocs: a keep-alive HTTP connection that sends the same
// token again costs no allocation per request (authentication reused, rate
// limit, rules).
func TestAuthHTTPAllocs(t *testing.T) {
	opts := &netserver.Options{Guard: guard.New(&guard.Options{Auth: testAuth(t), RateLimit: 1e9, RateBurst: 1e9}), Logger: quiet}
	s := New(newEngine(t, authSetup(t)...), opts)
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	hc := &httpConn{Conn: a, set: &s.conns, lim: &s.lim}
	hc.ctx = withOrigin(s.ctx, netserver.HTTP, a.RemoteAddr())
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
