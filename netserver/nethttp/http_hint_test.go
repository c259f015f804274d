package nethttp_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// TestHTTPHint: a GET of a path nobody serves is still 405 with
// "Allow: POST", and its body says where the path is served (Hint, exact
// or by prefix) or what this server answers; a POST there stays a call.
func TestHTTPHint(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	s := nethttp.New(e, nil)
	s.Hint("/metrics", "serve /metrics with --admin ADDR")
	s.Hint("/debug/pprof/", "pprof is on the admin listener (--admin ADDR)")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	}()
	c := &http.Client{Timeout: 5 * time.Second}
	defer c.CloseIdleConnections()
	f := func(method, path, body string, status int, want string) {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+ln.Addr().String()+path, strings.NewReader(body))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != status || !strings.Contains(string(got), want) {
			t.Errorf("%s %s: %d %q, want %d with %q", method, path, resp.StatusCode, got, status, want)
		}
		if status == http.StatusMethodNotAllowed && resp.Header.Get("Allow") != "POST" {
			t.Errorf("%s %s: Allow %q, want POST", method, path, resp.Header.Get("Allow"))
		}
	}
	f("GET", "/metrics", "", 405, "Method Not Allowed: serve /metrics with --admin ADDR\n")
	f("GET", "/debug/pprof/heap", "", 405, "Method Not Allowed: pprof is on the admin listener")
	f("DELETE", "/metrics", "", 405, "--admin ADDR")
	f("GET", "/metricsx", "", 405, "Method Not Allowed: POST JSON-RPC 2.0 messages to any path")
	f("GET", "/", "", 405, "GET /ws with the WebSocket upgrade headers")
	f("POST", "/metrics", `{"jsonrpc":"2.0","method":"x","id":1}`, 200, `"code":-32601`)
}
