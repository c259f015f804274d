package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// endpoint is an MCP server with the demo tools behind a fasthttp server
// on loopback.
type endpoint struct {
	t   *testing.T
	url string
	h   *mcphttp.Handler
	c   *http.Client
}

func newEndpoint(t *testing.T, opts *mcphttp.Options) *endpoint {
	t.Helper()
	s := mcp.New(mcp.Implementation{Name: "test", Version: "1"}, nil)
	require.NoError(t, mcpdemo.Register(s))
	if opts == nil {
		opts = &mcphttp.Options{}
	}
	if opts.Retry == 0 {
		opts.Retry = 50 * time.Millisecond
	}
	return serveHTTP(t, s, opts)
}

// serveHTTP serves s's HTTP endpoint on loopback until the test ends.
func serveHTTP(t *testing.T, s *mcp.Server, opts *mcphttp.Options) *endpoint {
	t.Helper()
	return serveHandler(t, mcphttp.New(s, opts), s)
}

// serveHandler serves h on loopback until the test ends, then shuts it
// down and closes s (when not nil).
func serveHandler(t *testing.T, h *mcphttp.Handler, s *mcp.Server) *endpoint {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &fasthttp.Server{Handler: h.ServeFastHTTP, CloseOnShutdown: true}
	go srv.Serve(ln)
	tr := &http.Transport{}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, h.Shutdown(ctx))
		require.NoError(t, srv.ShutdownWithContext(ctx))
		tr.CloseIdleConnections()
		if s != nil {
			s.Close()
		}
	})
	return &endpoint{t: t, url: "http://" + ln.Addr().String() + "/mcp", h: h, c: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

type hdr map[string]string

// do sends a request and returns the response with its body read (not for
// event streams that stay open: see open).
func (e *endpoint) do(method string, h hdr, body string) (*http.Response, string) {
	e.t.Helper()
	res := e.open(method, h, body)
	b, err := io.ReadAll(res.Body)
	require.NoError(e.t, err)
	res.Body.Close()
	return res, string(b)
}

func (e *endpoint) open(method string, h hdr, body string) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url, strings.NewReader(body))
	require.NoError(e.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := e.c.Do(req)
	require.NoError(e.t, err)
	return res
}

// initialize opens a session of version and returns its id.
func (e *endpoint) initialize(version string) string {
	e.t.Helper()
	res, body := e.do("POST", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	require.Equal(e.t, 200, res.StatusCode, body)
	sid := res.Header.Get("Mcp-Session-Id")
	require.NotEmpty(e.t, sid)
	res, _ = e.do("POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(e.t, 202, res.StatusCode)
	return sid
}

// events reads SSE events until n have data (or the stream ends) and
// returns each as its id and data.
func events(t *testing.T, r io.Reader, n int) [][2]string {
	t.Helper()
	var out [][2]string
	br := bufio.NewReader(r)
	var id, data string
	for n < 0 || len(out) < n {
		line, err := br.ReadString('\n')
		if err != nil {
			return out
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "id: "):
			id = line[4:]
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		case line == "":
			if data != "" {
				out = append(out, [2]string{id, data})
			}
			id, data = "", ""
		}
	}
	return out
}

func errorCode(t *testing.T, body string) int {
	t.Helper()
	var m struct {
		ID    *json.RawMessage `json:"id"`
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &m), body)
	return m.Error.Code
}

const ping = `{"jsonrpc":"2.0","id":7,"method":"ping"}`

func TestHTTPSessionErrors(t *testing.T) {
	e := newEndpoint(t, nil)
	sid := e.initialize(mcp.Latest)
	f := func(name string, method string, h hdr, body string, status int, want string) {
		t.Helper()
		res, got := e.do(method, h, body)
		require.Equal(t, status, res.StatusCode, "%s: %s", name, got)
		if want != "" {
			require.Contains(t, got, want, name)
		}
		if status >= 400 && got != "" {
			require.NotContains(t, got, `"id":null`, name) // the SDKs' schemas refuse a null id
		}
	}
	f("ping", "POST", hdr{"Mcp-Session-Id": sid}, ping, 200, `{"jsonrpc":"2.0","id":7,"result":{}}`)
	f("missing session id", "POST", nil, ping, 400, "Mcp-Session-Id")
	f("unknown session id", "POST", hdr{"Mcp-Session-Id": "x.y"}, ping, 404, "Session not found")
	other, _ := mcphttp.NewSessionIDs("other", nil)
	f("a valid-looking id of another key", "POST", hdr{"Mcp-Session-Id": other.New()}, ping, 404, "")
	f("unsupported protocol version", "POST", hdr{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "1999-01-01"}, ping, 400, `"requested":"1999-01-01"`)
	f("supported protocol version", "POST", hdr{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": mcp.Version20250618}, ping, 200, "")
	f("foreign origin", "POST", hdr{"Mcp-Session-Id": sid, "Origin": "https://evil.example"}, ping, 403, "")
	f("loopback origin", "POST", hdr{"Mcp-Session-Id": sid, "Origin": "http://localhost:3000"}, ping, 200, "")
	f("a batch", "POST", hdr{"Mcp-Session-Id": sid}, "["+ping+"]", 400, "no batch")
	f("not JSON", "POST", hdr{"Mcp-Session-Id": sid}, "{", 400, "-32700")
	f("accepts no event stream", "POST", hdr{"Mcp-Session-Id": sid, "Accept": "application/json"}, ping, 406, "")
	f("a notification", "POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","method":"notifications/whatever"}`, 202, "")
	f("a response", "POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":5,"result":{}}`, 202, "")
	f("GET without a session", "GET", nil, "", 400, "")
	f("PUT", "PUT", hdr{"Mcp-Session-Id": sid}, "", 405, "")
	f("Last-Event-ID that is no event id", "GET", hdr{"Mcp-Session-Id": sid, "Last-Event-ID": "nope"}, "", 400, "")
	f("DELETE", "DELETE", hdr{"Mcp-Session-Id": sid}, "", 200, "")
	f("reuse after DELETE", "POST", hdr{"Mcp-Session-Id": sid}, ping, 404, "")
	f("GET after DELETE", "GET", hdr{"Mcp-Session-Id": sid}, "", 404, "")
	f("DELETE again", "DELETE", hdr{"Mcp-Session-Id": sid}, "", 404, "")
	require.Zero(t, e.h.Sessions())
}

func TestHTTPInitializeNegotiates(t *testing.T) {
	e := newEndpoint(t, nil)
	for _, c := range [][2]string{{"2025-11-25", "2025-11-25"}, {"2025-06-18", "2025-06-18"}, {"2025-03-26", "2025-03-26"},
		{"2099-01-01", mcp.Latest}, {"2026-07-28", mcp.Latest}} {
		res, body := e.do("POST", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+c[0]+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		require.Equal(t, 200, res.StatusCode)
		require.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"`+c[1]+`","capabilities":{"tools":{}},"serverInfo":{"name":"test","version":"1"}}}`, body)
	}
	res, body := e.do("POST", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":[]}`)
	require.Equal(t, 200, res.StatusCode, body) // params that are not an object: negotiated as none
	require.Equal(t, 6, e.h.Sessions())
}

func TestHTTPStateless(t *testing.T) {
	e := newEndpoint(t, &mcphttp.Options{Stateless: true})
	res, body := e.do("POST", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	require.Equal(t, 200, res.StatusCode, body)
	require.Empty(t, res.Header.Get("Mcp-Session-Id"))
	res, body = e.do("POST", nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	require.Equal(t, 200, res.StatusCode, body)
	require.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}]}}`, body)
	for _, m := range []string{"GET", "DELETE"} {
		res, _ = e.do(m, hdr{"Mcp-Session-Id": "whatever"}, "")
		require.Equal(t, 405, res.StatusCode, m)
		require.Equal(t, "POST", res.Header.Get("Allow"))
	}
	// Progress still streams, without event ids (nothing to resume).
	res = e.open("POST", nil, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"countdown","arguments":{"n":2},"_meta":{"progressToken":"p"}}}`)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	ev := events(t, res.Body, -1)
	res.Body.Close()
	require.Len(t, ev, 3)
	for _, x := range ev {
		require.Empty(t, x[0])
	}
	require.Contains(t, ev[2][1], `"result"`)
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestHTTPModern(t *testing.T) {
	e := newEndpoint(t, nil)
	h := func(method, name string) hdr {
		x := hdr{"Mcp-Protocol-Version": mcp.Modern, "Mcp-Method": method}
		if name != "" {
			x["Mcp-Name"] = name
		}
		return x
	}
	call := func(text string) string {
		return `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"},` + modernMeta + `}}`
	}
	f := func(name string, hd hdr, body string, status int, want string) {
		t.Helper()
		res, got := e.do("POST", hd, body)
		require.Equal(t, status, res.StatusCode, "%s: %s", name, got)
		require.Contains(t, got, want, name)
		require.Empty(t, res.Header.Get("Mcp-Session-Id"), name)
	}
	f("server/discover", h("server/discover", ""), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`, 200,
		`"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1"}}}`)
	// 2026-07-28 removed the handshake, ping, logging/setLevel and resources/(un)subscribe:
	// "If the server does not implement the requested RPC method, it MUST respond with
	// 404 Not Found and a JSON-RPC error with code -32601" (basic/transports/streamable-http).
	for _, m := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"} {
		f(m, h(m, ""), `{"jsonrpc":"2.0","id":2,"method":"`+m+`","params":{"uri":"test://x",`+modernMeta+`}}`, 404, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,`)
	}
	f("tools/list", h("tools/list", ""), `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+modernMeta+`}}`, 200, `"result":{"resultType":"complete",`)
	f("tools/call", h("tools/call", "echo"), call("hi"), 200, `"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}]}`)
	f("a session id is ignored", hdr{"Mcp-Protocol-Version": mcp.Modern, "Mcp-Method": "tools/call", "Mcp-Name": "echo", "Mcp-Session-Id": "x.y"}, call("hi"), 200, `"text":"hi"`)
	f("Mcp-Name base64", h("tools/call", "=?base64?ZWNobw==?="), call("hi"), 200, `"text":"hi"`)
	f("Mcp-Name mismatch", h("tools/call", "add"), call("hi"), 400, `"code":-32020`)
	f("Mcp-Name missing", h("tools/call", ""), call("hi"), 400, `"code":-32020`)
	f("Mcp-Method mismatch", h("ping", "echo"), call("hi"), 400, `"code":-32020`)
	f("Mcp-Method missing", hdr{"Mcp-Protocol-Version": mcp.Modern, "Mcp-Name": "echo"}, call("hi"), 400, `"code":-32020`)
	f("header missing, _meta says 2026-07-28", hdr{"Mcp-Method": "tools/call", "Mcp-Name": "echo"}, call("hi"), 400, `"code":-32020`)
	f("_meta missing", h("tools/list", ""), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 400, `"code":-32602`)
	other := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2030-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`
	f("_meta of another version", hdr{"Mcp-Protocol-Version": "2030-01-01", "Mcp-Method": "tools/list"}, other, 400, `"code":-32022`)
	// "The header value MUST match the io.modelcontextprotocol/protocolVersion field carried
	// in the request body's _meta": a disagreement is HeaderMismatch, whichever is unsupported.
	f("_meta of another version than the header", h("tools/list", ""), other, 400, `"code":-32020`)
	f("header of another version than _meta", hdr{"Mcp-Protocol-Version": "2030-01-01", "Mcp-Method": "tools/list"},
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+modernMeta+`}}`, 400, `"code":-32020`)
	f("capabilities missing", h("tools/list", ""), `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, 400, `"code":-32602`)
	f("unknown method", h("nope", ""), `{"jsonrpc":"2.0","id":2,"method":"nope","params":{`+modernMeta+`}}`, 404, `"code":-32601`)
	f("a response", h("", ""), `{"jsonrpc":"2.0","id":2,"result":{}}`, 400, "")
	res, _ := e.do("GET", hdr{"Mcp-Protocol-Version": mcp.Modern}, "")
	require.Equal(t, 405, res.StatusCode)
	// A Modern request's stream has no ids, and a lost connection cancels it.
	res = e.open("POST", h("tools/call", "countdown"), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"countdown","arguments":{"n":2},`+modernMeta[:len(modernMeta)-1]+`,"progressToken":1}}}`)
	ev := events(t, res.Body, -1)
	res.Body.Close()
	require.Len(t, ev, 3)
	require.Empty(t, ev[0][0])
	require.Contains(t, ev[2][1], `"resultType":"complete"`)
}

// TestHTTPResume: a dropped connection does not cancel the call; GET with
// Last-Event-ID replays what was missed, then the rest, on that stream
// only; an id of another session's stream is refused.
func TestHTTPResume(t *testing.T) {
	e := newEndpoint(t, nil)
	sid := e.initialize(mcp.Latest)
	start := func(id string, n int) (*http.Response, [][2]string) {
		res := e.open("POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"countdown","arguments":{"n":`+
			itoa(n)+`,"intervalMs":40},"_meta":{"progressToken":"`+id+`"}}}`)
		require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
		require.Equal(t, "no", res.Header.Get("X-Accel-Buffering"))
		br := bufio.NewReader(res.Body)
		prime, err := br.ReadString('\n')
		require.NoError(t, err)
		require.Regexp(t, `^id: [0-9a-f]+-0\n$`, prime)
		retry, _ := br.ReadString('\n')
		require.Equal(t, "retry: 50\n", retry)
		return res, events(t, br, 1)
	}
	resA, evA := start("10", 4)
	resB, evB := start("11", 4)
	resA.Body.Close() // the client's connections drop
	resB.Body.Close()
	streamA := strings.Split(evA[0][0], "-")[0]
	streamB := strings.Split(evB[0][0], "-")[0]
	require.NotEqual(t, streamA, streamB)
	time.Sleep(250 * time.Millisecond) // the calls go on meanwhile
	res := e.open("GET", hdr{"Mcp-Session-Id": sid, "Last-Event-ID": evA[0][0]}, "")
	require.Equal(t, 200, res.StatusCode)
	rest := events(t, res.Body, -1)
	res.Body.Close()
	require.Len(t, rest, 4) // progress 2, 3, 4 and the result, once
	for i, x := range rest {
		require.Equal(t, streamA+"-"+itoa(i+2), x[0])
		require.NotContains(t, x[1], `"11"`)
	}
	require.Contains(t, rest[3][1], `{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"done"}]}}`)
	res, _ = e.do("GET", hdr{"Mcp-Session-Id": sid, "Last-Event-ID": rest[3][0]}, "")
	require.Equal(t, 204, res.StatusCode) // ended, nothing more
	// Another session cannot resume B's stream, nor this one a made-up stream.
	other := e.initialize(mcp.Latest)
	res, body := e.do("GET", hdr{"Mcp-Session-Id": other, "Last-Event-ID": evB[0][0]}, "")
	require.Equal(t, 400, res.StatusCode, body)
	res, _ = e.do("GET", hdr{"Mcp-Session-Id": sid, "Last-Event-ID": "123-1"}, "")
	require.Equal(t, 400, res.StatusCode)
	res = e.open("GET", hdr{"Mcp-Session-Id": sid, "Last-Event-ID": evB[0][0]}, "")
	restB := events(t, res.Body, -1)
	res.Body.Close()
	require.Len(t, restB, 4)
	require.Contains(t, restB[3][1], `"id":11,"result"`)
}

func TestHTTPCancel(t *testing.T) {
	e := newEndpoint(t, nil)
	sid := e.initialize(mcp.Latest)
	res := e.open("POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"countdown","arguments":{"n":100,"intervalMs":50},"_meta":{"progressToken":1}}}`)
	br := bufio.NewReader(res.Body)
	first := events(t, br, 1)
	require.Len(t, first, 1)
	r2, _ := e.do("POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"test"}}`)
	require.Equal(t, 202, r2.StatusCode)
	done := make(chan [][2]string)
	go func() { done <- events(t, br, -1) }()
	select {
	case rest := <-done:
		for _, x := range rest {
			require.NotContains(t, x[1], `"result"`) // no response for a cancelled request
		}
		require.Less(t, len(rest), 10)
	case <-time.After(5 * time.Second):
		t.Fatal("the stream of a cancelled call did not end")
	}
	res.Body.Close()
}

func TestHTTPStandaloneStream(t *testing.T) {
	e := newEndpoint(t, &mcphttp.Options{KeepAlive: 30 * time.Millisecond})
	sid := e.initialize(mcp.Latest)
	res := e.open("GET", hdr{"Mcp-Session-Id": sid}, "")
	require.Equal(t, 200, res.StatusCode)
	br := bufio.NewReader(res.Body)
	prime, _ := br.ReadString('\n')
	require.Regexp(t, `^id: [0-9a-f]+-0\n$`, prime)
	r2, _ := e.do("GET", hdr{"Mcp-Session-Id": sid}, "")
	require.Equal(t, 409, r2.StatusCode) // one standalone stream at a time
	ka := make(chan string, 1)
	go func() {
		for {
			line, err := br.ReadString('\n')
			if err != nil || strings.HasPrefix(line, ": ") {
				ka <- line
				return
			}
		}
	}()
	select {
	case line := <-ka:
		require.Equal(t, ": keep-alive\n", line)
	case <-time.After(5 * time.Second):
		t.Fatal("no keep-alive")
	}
	r3, _ := e.do("DELETE", hdr{"Mcp-Session-Id": sid}, "")
	require.Equal(t, 200, r3.StatusCode)
	_, err := io.ReadAll(br) // the session's end ends its stream
	require.NoError(t, err)
	res.Body.Close()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
