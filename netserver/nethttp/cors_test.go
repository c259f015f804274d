package nethttp_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// corsServers starts both HTTP servers with the Host and Origin policies
// and a method "count" that counts its runs; it returns their base URLs.
func corsServers(t *testing.T, opts *netserver.Options) (bases []string, runs *atomic.Int64) {
	t.Helper()
	runs = new(atomic.Int64)
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	e.Register("count", dispatch.HandlerFunc(func(ctx context.Context, params, dst []byte) ([]byte, error) {
		runs.Add(1)
		return append(dst, "true"...), nil
	}))
	srv := nethttp.New(e, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	std := httptest.NewServer(nethttp.Handler(e, opts))
	t.Cleanup(std.Close)
	return []string{"http://" + ln.Addr().String(), std.URL}, runs
}

type corsCase struct {
	method, path, body string
	header             map[string]string
}

func (c corsCase) do(t *testing.T, base string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
	for k, v := range c.header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

const countCall = `{"jsonrpc":"2.0","method":"count","id":1}`

// TestCORS: preflights, the headers on every answer of an allowed origin
// (errors too), 403 before anything runs for a foreign one, nothing for a
// request without Origin; on both HTTP servers.
func TestCORS(t *testing.T) {
	origins, err := guard.ParseOriginPolicy("http://app.example,https://dapp.example:8443")
	if err != nil {
		t.Fatal(err)
	}
	hosts, _ := guard.ParseHostPolicy("rpc.example")
	docs := map[string]func() ([]byte, error){"/openrpc.json": func() ([]byte, error) { return []byte(`{}`), nil }}
	var refusedHost, refusedOrigin atomic.Int64
	obs := netserver.ObserverFunc(func(tr netserver.Transport, ev netserver.ConnEvent) {
		switch ev {
		case netserver.ConnHostRefused:
			refusedHost.Add(1)
		case netserver.ConnOriginRefused:
			refusedOrigin.Add(1)
		}
	})
	bases, runs := corsServers(t, &netserver.Options{Guard: guard.New(&guard.Options{Origins: origins, Hosts: hosts}),
		Documents: docs, MaxMessage: 100, Observer: obs})
	for _, base := range bases {
		allowed := map[string]string{"Origin": "http://app.example"}
		f := func(c corsCase, status int, cors bool) {
			t.Helper()
			resp, body := c.do(t, base)
			if resp.StatusCode != status {
				t.Errorf("%s %s %v: %d %q, want %d", c.method, c.path, c.header, resp.StatusCode, body, status)
			}
			h := resp.Header
			if got := h.Get("Access-Control-Allow-Origin"); cors != (got != "") || cors && got != c.header["Origin"] {
				t.Errorf("%s %s %v: Access-Control-Allow-Origin %q", c.method, c.path, c.header, got)
			}
			if cors && (!slices.Contains(h.Values("Vary"), "Origin") || !strings.Contains(h.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id")) {
				t.Errorf("%s %s: Vary %q, Expose %q", c.method, c.path, h.Get("Vary"), h.Get("Access-Control-Expose-Headers"))
			}
			if h.Get("Access-Control-Allow-Credentials") != "" {
				t.Errorf("%s %s: Access-Control-Allow-Credentials sent", c.method, c.path)
			}
		}
		preflight := func(path string) {
			t.Helper()
			c := corsCase{method: "OPTIONS", path: path, header: map[string]string{"Origin": "https://dapp.example:8443",
				"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,mcp-session-id,mcp-protocol-version"}}
			f(c, 204, true)
			resp, _ := c.do(t, base)
			h := resp.Header
			for _, want := range []string{"Content-Type", "Authorization", "Accept", "Mcp-Session-Id", "Mcp-Protocol-Version",
				"Last-Event-ID", "traceparent", "tracestate"} {
				if !strings.Contains(h.Get("Access-Control-Allow-Headers"), want) {
					t.Errorf("preflight %s: Access-Control-Allow-Headers %q lacks %s", path, h.Get("Access-Control-Allow-Headers"), want)
				}
			}
			if h.Get("Access-Control-Allow-Methods") != "GET, POST, DELETE, OPTIONS" || h.Get("Access-Control-Max-Age") == "" {
				t.Errorf("preflight %s: methods %q, max-age %q", path, h.Get("Access-Control-Allow-Methods"), h.Get("Access-Control-Max-Age"))
			}
		}
		for _, p := range []string{"/", "/rpc", "/mcp", "/ws", "/openrpc.json"} {
			preflight(p)
		}
		before := runs.Load()
		f(corsCase{method: "POST", path: "/", body: countCall, header: allowed}, 200, true)
		f(corsCase{method: "POST", path: "/", body: `{"jsonrpc":"2.0","method":"count"}`, header: allowed}, 204, true)
		f(corsCase{method: "GET", path: "/", header: allowed}, 405, true)
		f(corsCase{method: "POST", path: "/", body: strings.Repeat(" ", 200), header: allowed}, 413, true)
		f(corsCase{method: "GET", path: "/openrpc.json", header: allowed}, 200, true)
		f(corsCase{method: "GET", path: "/healthz", header: allowed}, 200, true)
		f(corsCase{method: "POST", path: "/", body: countCall, header: map[string]string{"Accept": "text/event-stream",
			"Origin": "http://app.example"}}, 200, true)
		if n := runs.Load() - before; n != 3 {
			t.Errorf("allowed: %d runs, want 3", n)
		}

		before = runs.Load()
		foreign := map[string]string{"Origin": "http://evil.example"}
		f(corsCase{method: "POST", path: "/", body: countCall, header: foreign}, 403, false)
		f(corsCase{method: "POST", path: "/", body: countCall, header: map[string]string{"Origin": "http://evil.example",
			"Content-Type": "text/plain"}}, 403, false)
		f(corsCase{method: "POST", path: "/", body: countCall, header: map[string]string{"Origin": "null"}}, 403, false)
		f(corsCase{method: "OPTIONS", path: "/", header: map[string]string{"Origin": "http://evil.example",
			"Access-Control-Request-Method": "POST"}}, 403, false)
		f(corsCase{method: "GET", path: "/openrpc.json", header: foreign}, 403, false)
		f(corsCase{method: "POST", path: "/", body: countCall, header: map[string]string{"Origin": "http://app.example.evil"}}, 403, false)
		if n := runs.Load() - before; n != 0 {
			t.Errorf("foreign origin: %d runs, want 0", n)
		}

		// No Origin: not a browser, untouched.
		f(corsCase{method: "POST", path: "/", body: countCall}, 200, false)
		f(corsCase{method: "OPTIONS", path: "/"}, 405, false)
		// The page's own origin (the request's host) passes.
		host := strings.TrimPrefix(base, "http://")
		f(corsCase{method: "POST", path: "/", body: countCall, header: map[string]string{"Origin": base}}, 200, true)

		// Host: localhost and IP literals pass with any port, a listed name too.
		before = runs.Load()
		port := host[strings.LastIndexByte(host, ':'):]
		for _, h := range []string{"localhost" + port, "127.0.0.1" + port, "[::1]" + port, "rpc.example" + port, "RPC.example"} {
			f(corsCase{method: "POST", path: "/", body: countCall, header: map[string]string{"Host": h}}, 200, false)
		}
		for _, h := range []string{"evil.example", "evil.example" + port, "rpc.example.evil"} {
			resp, body := corsCase{method: "POST", path: "/", body: countCall, header: map[string]string{"Host": h}}.do(t, base)
			if resp.StatusCode != 403 || !strings.Contains(body, "invalid host specified") {
				t.Errorf("Host %s: %d %q, want 403 invalid host specified", h, resp.StatusCode, body)
			}
		}
		if n := runs.Load() - before; n != 5 {
			t.Errorf("host checks: %d runs, want 5", n)
		}
	}
	// Each server: 3 Hosts and 6 origins refused.
	if h, o := refusedHost.Load(), refusedOrigin.Load(); h != 6 || o != 12 {
		t.Errorf("observed %d Host and %d Origin refusals, want 6 and 12", h, o)
	}
}

// TestCORSAny: "*" allows every origin (still echoed, never credentials),
// and no Hosts policy means no Host check.
func TestCORSAny(t *testing.T) {
	any, _ := guard.ParseOriginPolicy("*")
	bases, _ := corsServers(t, &netserver.Options{Guard: guard.New(&guard.Options{Origins: any})})
	for _, base := range bases {
		resp, _ := corsCase{method: "POST", path: "/", body: countCall,
			header: map[string]string{"Origin": "http://anything.example", "Host": "whatever.example"}}.do(t, base)
		if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "http://anything.example" {
			t.Errorf("%s: %d, Access-Control-Allow-Origin %q", base, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}
}
