//go:build !race

package nethttp_test

import (
	"log/slog"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/valyala/fasthttp"
)

// TestCORSAllocs: the Host check, the Origin check and the CORS headers
// (and a preflight) add no allocation to a request.
func TestCORSAllocs(t *testing.T) {
	e := dispatch.New(&dispatch.Options{Logger: slog.New(slog.DiscardHandler)})
	defer e.Close()
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	origins, _ := guard.ParseOriginPolicy("http://a.example,http://app.example:8080")
	hosts, _ := guard.ParseHostPolicy("rpc.example")
	s := nethttp.New(e, &netserver.Options{Guard: guard.New(&guard.Options{Origins: origins, Hosts: hosts})})
	f := func(name, method, host, origin, body string, status int, cors bool) {
		t.Helper()
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(method)
		ctx.Request.Header.SetHost(host)
		if origin != "" {
			ctx.Request.Header.Set("Origin", origin)
		}
		if method == fasthttp.MethodOptions {
			ctx.Request.Header.Set("Access-Control-Request-Method", "POST")
		}
		ctx.Request.SetBodyString(body)
		run := func() {
			s.Handler(&ctx)
			if ctx.Response.StatusCode() != status {
				t.Fatalf("%s: status %d, want %d", name, ctx.Response.StatusCode(), status)
			}
			got := ctx.Response.Header.Peek("Access-Control-Allow-Origin")
			if cors != (len(got) > 0 && string(got) == origin) { // no allocation: a comparison
				t.Fatalf("%s: Access-Control-Allow-Origin %q", name, got)
			}
			ctx.Response.Reset()
		}
		run()
		if n := testing.AllocsPerRun(200, run); n != 0 {
			t.Errorf("%s: %v allocations per request, want 0", name, n)
		}
	}
	post := fasthttp.MethodPost
	f("no origin", post, "127.0.0.1:8080", "", httpSubtract, 200, false)
	f("allowed origin", post, "rpc.example:8545", "http://app.example:8080", httpSubtract, 200, true)
	f("own origin", post, "localhost:8545", "http://localhost:8545", httpSubtract, 200, true)
	f("notification", post, "[::1]:8545", "http://a.example", `{"jsonrpc":"2.0","method":"update"}`, 204, true)
	f("preflight", fasthttp.MethodOptions, "localhost:1", "http://a.example", "", 204, true)
	f("foreign origin", post, "localhost:1", "http://evil.example", httpSubtract, 403, false)
	f("foreign host", post, "evil.example", "", httpSubtract, 403, false)
}
