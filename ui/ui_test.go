package ui_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/jetrpc/jetrpc/ui"
)

// targets starts the demo server over TCP and HTTP (with /ws) and returns
// the three target URLs.
func targets(t *testing.T) map[string]string {
	t.Helper()
	e := dispatch.New(nil)
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	raw, web := netserver.New(e, nil), nethttp.New(e, nil)
	tl, _ := net.Listen("tcp", "127.0.0.1:0")
	hl, _ := net.Listen("tcp", "127.0.0.1:0")
	go raw.Serve(tl)
	go web.Serve(hl)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		raw.Shutdown(ctx)
		web.Shutdown(ctx)
	})
	return map[string]string{
		"tcp":  "tcp://" + tl.Addr().String(),
		"http": "http://" + hl.Addr().String() + "/",
		"ws":   "ws://" + hl.Addr().String() + "/ws",
	}
}

func console(t *testing.T, target string, opts *ui.ServerOptions) *httptest.Server {
	t.Helper()
	s, err := ui.NewServer(target, opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		hs.Close()
	})
	return hs
}

func post(t *testing.T, url, body string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestProxyPost: POSTs relayed to each kind of target answer as the target
// does, ids and batches included; what cannot be forwarded is answered as a
// server would.
func TestProxyPost(t *testing.T) {
	for kind, target := range targets(t) {
		t.Run(kind, func(t *testing.T) {
			hs := console(t, target, nil)
			f := func(body string, status int, want string) {
				t.Helper()
				got, text := post(t, hs.URL+"/", body)
				if got != status || !strings.Contains(text, want) {
					t.Errorf("POST %s: %d %s, want %d %s", body, got, text, status, want)
				}
			}
			f(`{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":"x"}`, 200,
				`{"jsonrpc":"2.0","id":"x","result":19}`)
			f(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, 200, `"id":1,"result":19`)
			f(`{"jsonrpc":"2.0","method":"fail","params":{"code":-32099,"message":"boom"},"id":2}`, 200,
				`"id":2,"error":{"code":-32099,"message":"boom"}`)
			f(`{"jsonrpc":"2.0","method":"update","params":[1]}`, 204, ``)
			f(`[{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1},{"jsonrpc":"2.0","method":"update"},`+
				`{"jsonrpc":"2.0","method":"get_data","id":1}]`, 200, `"result":["hello",5]`)
			if kind != "http" { // the proxy's own answers; an HTTP target gives its own
				f(`{bad`, 200, `"code":-32700`)
				f(`[]`, 200, `"code":-32600`)
				f(`[{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1},5]`, 200, `"code":-32600`)
			}
		})
	}
}

// TestProxyWS: the page's WebSocket reaches the target, and the target's
// notifications come back on it.
func TestProxyWS(t *testing.T) {
	for kind, target := range targets(t) {
		t.Run(kind, func(t *testing.T) {
			hs := console(t, target, nil)
			wc, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.URL, "http")+"/ws", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer wc.Close()
			wc.SetReadDeadline(time.Now().Add(10 * time.Second))
			msg := `{"jsonrpc":"2.0","method":"subscribe","params":[3],"id":7}`
			if kind == "http" { // no pushes: each message is a POST
				msg = `{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":7}`
			}
			wc.WriteMessage(websocket.TextMessage, []byte(msg))
			var got []string
			for len(got) < 4 && kind != "http" || len(got) < 1 {
				_, msg, err := wc.ReadMessage()
				if err != nil {
					t.Fatal(err, got)
				}
				got = append(got, string(msg))
			}
			last := got[len(got)-1]
			if !strings.Contains(last, `"id":7,"result":3`) {
				t.Errorf("answer %s", last)
			}
			for _, n := range got[:len(got)-1] {
				if !strings.Contains(n, `"method":"subscription"`) {
					t.Errorf("notification %s", n)
				}
			}
		})
	}
}

// TestServerChecks: the console answers its own pages only.
func TestServerChecks(t *testing.T) {
	hs := console(t, targets(t)["tcp"], nil)
	call := `{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}`
	f := func(status int, header ...string) {
		t.Helper()
		if got, text := post(t, hs.URL+"/", call, header...); got != status {
			t.Errorf("%v: %d %s, want %d", header, got, text, status)
		}
	}
	host := strings.TrimPrefix(hs.URL, "http://")
	f(200)
	f(200, "Origin", hs.URL)
	f(403, "Origin", "http://evil.example")
	f(403, "Origin", "http://127.0.0.1:1")
	f(403, "Host", "evil.example")
	f(200, "Host", "localhost:"+host[strings.LastIndexByte(host, ':')+1:])

	for path, want := range map[string]string{"/": "<title>jetrpc console", "/ui/": "data-testid=\"method-list\"",
		"/app.js": "rpc.discover", "/ui/app.css": "--acc", "/config.json": `"target":"tcp://`} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("GET %s: %d, no %q", path, resp.StatusCode, want)
		}
	}
	resp, _ := http.Get(hs.URL + "/nothing/here")
	if resp.StatusCode != 404 {
		t.Errorf("GET /nothing/here: %d", resp.StatusCode)
	}
	resp.Body.Close()
}

// TestDocument: --openrpc's document is served beside the page and named
// in its config.
func TestDocument(t *testing.T) {
	doc := `{"openrpc":"1.3.2","info":{"title":"t","version":"1"},"methods":[]}`
	hs := console(t, targets(t)["tcp"], &ui.ServerOptions{Document: func() ([]byte, error) { return []byte(doc), nil }})
	for path, want := range map[string]string{"/config.json": `"document":"openrpc.json"`, "/openrpc.json": doc, "/ui/openrpc.json": doc} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), want) {
			t.Errorf("GET %s: %s, want %s", path, b, want)
		}
	}
}

// TestMount: netserver.Options.Mounts serves the page at /ui/ of both HTTP
// servers; /ui redirects there; a POST stays JSON-RPC.
func TestMount(t *testing.T) {
	e := dispatch.New(nil)
	demo.Register(e)
	defer e.Close()
	opts := &netserver.Options{Mounts: map[string]http.Handler{"/ui/": ui.Handler(nil)}}
	web := nethttp.New(e, opts)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go web.Serve(ln)
	defer web.Shutdown(context.Background())
	std := httptest.NewServer(nethttp.Handler(e, opts))
	defer std.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, base := range []string{"http://" + ln.Addr().String(), std.URL} {
		get := func(path string, status int, want string) {
			t.Helper()
			resp, err := noRedirect.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != status || !strings.Contains(string(b)+resp.Header.Get("Location"), want) {
				t.Errorf("GET %s%s: %d %.80s, want %d %q", base, path, resp.StatusCode, b, status, want)
			}
		}
		get("/ui/", 200, "jetrpc console")
		get("/ui/app.js", 200, "rpc.discover")
		get("/ui/config.json", 200, `{"rpc":"../","ws":"../ws"}`)
		get("/ui", 301, "/ui/")
		get("/uix", 405, "")
		if got, text := post(t, base+"/ui/", `{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}`); got != 200 || !strings.Contains(text, `"result":3`) {
			t.Errorf("POST /ui/: %d %s", got, text)
		}
	}
}
