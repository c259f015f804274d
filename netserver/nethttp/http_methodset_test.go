package nethttp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// TestHTTPMethodSet: Options.Methods[HTTP] applies to a POST on both HTTP
// servers (HTTPServer and Handler): a method outside the set is -32601
// as an unknown one, inside it is served, and a handler finds the set in
// its context (dispatch.MethodSetOf, what rpc.discover lists by); an event
// stream (Accept: text/event-stream) gets Options.Methods[SSE].
func TestHTTPMethodSet(t *testing.T) {
	for _, kind := range []string{"fasthttp", "net/http"} {
		t.Run(strings.ReplaceAll(kind, "/", ""), func(t *testing.T) {
			e, started := newHTTPEngine(t)
			err := e.RegisterMethod(dispatch.Method{Name: "eth_served", Inline: true, Handler: dispatch.HandlerFunc(
				func(ctx context.Context, _, dst []byte) ([]byte, error) {
					set := dispatch.MethodSetOf(ctx)
					if set == nil {
						return append(dst, `"no set"`...), nil
					}
					if set.Has("subtract") || !set.Has("eth_served") {
						return append(dst, `"wrong set"`...), nil
					}
					return append(dst, `"eth only"`...), nil
				})})
			if err != nil {
				t.Fatal(err)
			}
			set := e.NewMethodSet([]string{"eth_"})
			opts := &netserver.Options{Methods: map[netserver.Transport]*dispatch.MethodSet{
				netserver.HTTP: set, netserver.SSE: set}}
			var h *httpTarget
			if kind == "fasthttp" {
				s := nethttp.New(e, opts)
				h = serveHTTP(t, started, s.Serve, s.Shutdown, netserver.ErrServerClosed)
			} else {
				s := &http.Server{Handler: nethttp.Handler(e, opts), ReadHeaderTimeout: 5 * time.Second}
				h = serveHTTP(t, started, s.Serve, s.Shutdown, http.ErrServerClosed)
			}
			unknown := h.post(`{"jsonrpc":"2.0","method":"no_such_method","id":1}`)
			unknown.wantCall(t, `"code":-32601`)
			hidden := h.post(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
			hidden.wantCall(t, `"code":-32601`)
			if string(hidden.body) != string(unknown.body) {
				t.Errorf("a hidden method: %s; an unknown one: %s", hidden.body, unknown.body)
			}
			h.post(`{"jsonrpc":"2.0","method":"eth_served","id":2}`).wantCall(t, `"result":"eth only"`)
			h.post(`[{"jsonrpc":"2.0","method":"eth_served","id":3},{"jsonrpc":"2.0","method":"sum","params":[1],"id":4}]`).
				wantCall(t, `{"jsonrpc":"2.0","id":4,"error":{"code":-32601`)

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.url,
				strings.NewReader(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":5}`))
			req.Header.Set("Accept", "text/event-stream")
			r, err := h.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Body.Close()
			var b strings.Builder
			buf := make([]byte, 512)
			for !strings.Contains(b.String(), `"id":5`) {
				n, err := r.Body.Read(buf)
				b.Write(buf[:n])
				if err != nil {
					break
				}
			}
			if !strings.Contains(b.String(), `"code":-32601`) {
				t.Errorf("a hidden method over SSE: %q", b.String())
			}
		})
	}
}
