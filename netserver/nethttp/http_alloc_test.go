//go:build !race

package nethttp_test

import (
	"log/slog"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/valyala/fasthttp"
)

// TestHTTPHandlerAllocs checks that HTTPServer.Handler allocates nothing per
// request once fasthttp's RequestCtx and buffers are warm.
func TestHTTPHandlerAllocs(t *testing.T) {
	e := dispatch.New(&dispatch.Options{Logger: slog.New(slog.DiscardHandler)})
	defer e.Close()
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	s := nethttp.New(e, nil)
	f := func(name, body string, status int) {
		t.Helper()
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(fasthttp.MethodPost)
		ctx.Request.SetBodyString(body)
		run := func() {
			s.Handler(&ctx)
			if ctx.Response.StatusCode() != status {
				t.Fatalf("%s: status %d, want %d", name, ctx.Response.StatusCode(), status)
			}
			ctx.Response.Reset()
		}
		run()
		if n := testing.AllocsPerRun(200, run); n != 0 {
			t.Errorf("%s: %v allocations per request, want 0", name, n)
		}
	}
	f("call", httpSubtract, fasthttp.StatusOK)
	f("notification", `{"jsonrpc":"2.0","method":"update","params":[1]}`, fasthttp.StatusNoContent)
	f("batch", `[`+httpSubtract+`,{"jsonrpc":"2.0","method":"get_data","id":"x"}]`, fasthttp.StatusOK)
	f("parse error", `{"jsonrpc"`, fasthttp.StatusOK)
}
