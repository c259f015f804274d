//go:build !race

package nethttp_test

import (
	"bytes"
	"compress/gzip"
	"log/slog"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/valyala/fasthttp"
)

// TestHTTPCompressAllocs: with compression on, HTTPServer.Handler
// allocates nothing per request once warm: a gzip or deflate answer, a
// gzip request body, an answer below the threshold.
func TestHTTPCompressAllocs(t *testing.T) {
	e := dispatch.New(&dispatch.Options{Logger: slog.New(slog.DiscardHandler)})
	defer e.Close()
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	s := nethttp.New(e, nil)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(echoCall(4096)))
	w.Close()
	f := func(name, accept, ce string, body []byte, wantCE string) {
		t.Helper()
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(fasthttp.MethodPost)
		ctx.Request.Header.Set(fasthttp.HeaderAcceptEncoding, accept)
		if ce != "" {
			ctx.Request.Header.Set(fasthttp.HeaderContentEncoding, ce)
		}
		ctx.Request.SetBody(body)
		run := func() {
			s.Handler(&ctx)
			if ctx.Response.StatusCode() != fasthttp.StatusOK ||
				string(ctx.Response.Header.ContentEncoding()) != wantCE {
				t.Fatalf("%s: status %d, Content-Encoding %q, want 200 %q", name, ctx.Response.StatusCode(),
					ctx.Response.Header.ContentEncoding(), wantCE)
			}
			ctx.Response.Reset()
		}
		run()
		if n := testing.AllocsPerRun(200, run); n != 0 {
			t.Errorf("%s: %v allocations per request, want 0", name, n)
		}
	}
	f("gzip answer", "gzip, deflate, br", "", []byte(echoCall(4096)), "gzip")
	f("deflate answer", "deflate", "", []byte(echoCall(4096)), "deflate")
	f("gzip body and answer", "gzip", "gzip", gz.Bytes(), "gzip")
	f("below the threshold", "gzip", "", []byte(httpSubtract), "")
}
