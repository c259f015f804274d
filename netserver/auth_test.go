package netserver

// Authentication on every transport: TCP and stdio (the authenticating
// call), HTTP and the net/http adapter, WebSocket, SSE. Each checks that a
// good credential works and its identity reaches the handler, that a bad
// or missing one fails, that a JWT outside its iat window fails, and that
// a method the rules deny fails alone in its batch.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/internal/servertest"
	"github.com/valyala/fasthttp"
)

const (
	callWhoami = `{"jsonrpc":"2.0","id":2,"method":"whoami"}`
	// deniedBatch: alice may not call subtract; the others are served.
	deniedBatch = `[{"jsonrpc":"2.0","id":1,"method":"whoami"},` +
		`{"jsonrpc":"2.0","id":2,"method":"subtract","params":[3,1]},` +
		`{"jsonrpc":"2.0","id":3,"method":"whoami_inline"},{"jsonrpc":"2.0","id":4,"method":"sum","params":[1,2]}]`
)

// checkDeniedBatch checks the answer to deniedBatch as alice.
func checkDeniedBatch(t testing.TB, out []byte) {
	t.Helper()
	s := string(out)
	for _, want := range []string{`"id":1,"result":"alice/bearer"`, `"id":3,"result":"alice/bearer"`, `"id":4,"result":3`,
		`"id":2,"error":{"code":-32007,"message":"Forbidden","data":"method \"subtract\" is not allowed for this client"}`} {
		if !strings.Contains(s, want) {
			t.Errorf("batch answer %s lacks %s", s, want)
		}
	}
}

// The authentication harness shared with nethttp's tests.
const (
	aliceToken = servertest.AliceToken
	bobToken   = servertest.BobToken
)

var (
	testAuth  = servertest.TestAuth
	signJWT   = servertest.SignJWT
	whoami    = servertest.Whoami
	authSetup = servertest.AuthSetup
	authCall  = servertest.AuthCall
)

func TestAuthTCP(t *testing.T) {
	ts := startServer(t, &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t)})}, authSetup(t)...)
	for _, kind := range framings {
		t.Run(kind.String(), func(t *testing.T) {
			c := ts.dial(t, kind)
			expectResult(t, c.call(authCall(aliceToken)), "1", `{"name":"alice","scheme":"bearer"}`)
			expectResult(t, c.call(callWhoami), "2", `"alice/bearer"`)
			checkDeniedBatch(t, c.call(deniedBatch))
			// Authenticated: rpc.authenticate is an unknown method now.
			expectError(t, c.call(authCall(bobToken)), "1", -32601)
		})
	}
	t.Run("by-position", func(t *testing.T) {
		c := ts.dial(t, frame.NDJSON)
		expectResult(t, c.call(`{"jsonrpc":"2.0","id":"a","method":"rpc.authenticate","params":["`+bobToken+`"]}`),
			`"a"`, `{"name":"bob","scheme":"bearer"}`)
		expectResult(t, c.call(`{"jsonrpc":"2.0","id":3,"method":"subtract","params":[3,1]}`), "3", "2")
	})
	t.Run("jwt", func(t *testing.T) {
		c := ts.dial(t, frame.NDJSON)
		expectResult(t, c.call(authCall(signJWT(t, -30*time.Second))), "1", `{"name":"jwt","scheme":"jwt"}`)
		expectResult(t, c.call(callWhoami), "2", `"jwt/jwt"`)
	})
	refused := func(name, first, wantData string, id string) {
		t.Run(name, func(t *testing.T) {
			c := ts.dial(t, frame.NDJSON)
			c.send(first)
			c.send(callWhoami) // never answered: the connection closes after the refusal
			if data := expectError(t, c.recv(), id, -32006); !strings.Contains(data, wantData) {
				t.Errorf("data %s, want %q", data, wantData)
			}
			c.expectClosed()
		})
	}
	refused("bad-token", authCall("not-a-token-0123456789"), "invalid token", "1")
	refused("missing", callWhoami, "authenticate first", "2")
	refused("no-params", `{"jsonrpc":"2.0","id":1,"method":"rpc.authenticate"}`, "needs params", "1")
	refused("empty-token", authCall(""), "needs params", "1")
	refused("batch-first", `[`+authCall(aliceToken)+`]`, "authenticate first", "null")
	refused("stale-jwt", authCall(signJWT(t, -61*time.Second)), "stale token", "1")
	refused("future-jwt", authCall(signJWT(t, 61*time.Second)), "future token", "1")
	refused("not-json", `{"jsonrpc":`, "authenticate first", "null")
}

func TestAuthStdio(t *testing.T) {
	t.Run("ok", func(t *testing.T) {
		_, c := startStdio(t, &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t)})}, frame.Header, authSetup(t)...)
		expectResult(t, c.call(authCall(aliceToken)), "1", `{"name":"alice","scheme":"bearer"}`)
		expectResult(t, c.call(callWhoami), "2", `"alice/bearer"`)
		checkDeniedBatch(t, c.call(deniedBatch))
	})
	t.Run("refused", func(t *testing.T) {
		checkGoroutines(t)
		s := newServer(t, &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t)})}, authSetup(t)...)
		in := strings.NewReader(string(frame.AppendFrame(nil, frame.NDJSON, []byte(callWhoami))))
		var out bytes.Buffer
		if err := s.ServeStdio(in, &out); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("ServeStdio = %v, want ErrUnauthenticated", err)
		}
		if data := expectError(t, bytes.TrimSpace(out.Bytes()), "2", -32006); !strings.Contains(data, "authenticate first") {
			t.Errorf("data %s", data)
		}
		s.Shutdown(context.Background())
	})
}

// startHTTPAuth serves a demo engine over HTTP (the fasthttp server, or
// the net/http adapter with std) and returns its base URL.
func startHTTPAuth(t *testing.T, std bool, opts *Options, setup ...engineSetup) string {
	t.Helper()
	if !std {
		_, url := startWS(t, opts, setup...)
		return "http://" + strings.TrimSuffix(strings.TrimPrefix(url, "ws://"), "/ws")
	}
	checkGoroutines(t)
	o := *opts
	o.Logger = quiet
	srv := &http.Server{Handler: HTTPHandlerTest(newEngine(t, setup...), &o), ReadHeaderTimeout: testTimeout}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// httpDo posts body (a GET without one) with the given headers.
func httpDo(t testing.TB, url, body string, header ...string) (*http.Response, string) {
	t.Helper()
	method, rd := http.MethodGet, io.Reader(nil)
	if body != "" {
		method, rd = http.MethodPost, strings.NewReader(body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestAuthHTTP(t *testing.T) {
	for _, std := range []bool{false, true} {
		name := "fasthttp"
		if std {
			name = "net-http"
		}
		t.Run(name, func(t *testing.T) {
			url := startHTTPAuth(t, std, &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t)})}, authSetup(t)...)
			f := func(what, authz string, wantStatus int, want string) {
				t.Helper()
				var h []string
				if authz != "" {
					h = []string{"Authorization", authz}
				}
				resp, body := httpDo(t, url, callWhoami, h...)
				if resp.StatusCode != wantStatus || !strings.Contains(body, want) {
					t.Errorf("%s: %d %s, want %d %s", what, resp.StatusCode, body, wantStatus, want)
				}
				if wantStatus == http.StatusUnauthorized {
					wantChallenge := `Bearer realm="jetrpc"`
					if strings.HasPrefix(authz, "Bearer") {
						wantChallenge += `, error="invalid_token"`
					}
					if got := resp.Header.Get("WWW-Authenticate"); got != wantChallenge {
						t.Errorf("%s: WWW-Authenticate %q, want %q", what, got, wantChallenge)
					}
				}
			}
			f("token", "Bearer "+aliceToken, 200, `"result":"alice/bearer"`)
			f("scheme in lower case", "bearer "+bobToken, 200, `"result":"bob/bearer"`)
			f("jwt", "Bearer "+signJWT(t, 0), 200, `"result":"jwt/jwt"`)
			f("jwt at -59s", "Bearer "+signJWT(t, -59*time.Second), 200, `"result":"jwt/jwt"`)
			f("missing", "", 401, "missing credentials")
			f("basic", "Basic YTpi", 401, "missing credentials")
			f("bad token", "Bearer "+aliceToken+"x", 401, "invalid token") // the JWT authenticator's word
			f("stale jwt", "Bearer "+signJWT(t, -61*time.Second), 401, "stale token")
			f("future jwt", "Bearer "+signJWT(t, 61*time.Second), 401, "future token")
			f("forged jwt", "Bearer "+signJWT(t, 0)+"x", 401, "invalid token")

			resp, body := httpDo(t, url, deniedBatch, "Authorization", "Bearer "+aliceToken)
			if resp.StatusCode != 200 {
				t.Errorf("batch: %d %s", resp.StatusCode, body)
			}
			checkDeniedBatch(t, []byte(body))
		})
	}
}

// TestAuthHTTPKeepAlive: one connection, requests with changing tokens;
// each gets its own identity (the connection's cache is per token).
func TestAuthHTTPKeepAlive(t *testing.T) {
	url := startHTTPAuth(t, false, &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t)})}, authSetup(t)...)
	nc, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(testTimeout))
	br := bufio.NewReader(nc)
	f := func(token string, wantStatus int, want string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(callWhoami))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if err := req.Write(nc); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != wantStatus || !strings.Contains(string(b), want) {
			t.Errorf("%q: %d %s, want %d %s", token, resp.StatusCode, b, wantStatus, want)
		}
	}
	f(aliceToken, 200, "alice/bearer")
	f(aliceToken, 200, "alice/bearer")
	f(bobToken, 200, "bob/bearer")
	f("", 401, "missing")
	f(aliceToken+"x", 401, "invalid token")
	f(aliceToken, 200, "alice/bearer")
}

func TestAuthWS(t *testing.T) {
	_, url := startWS(t, &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t)})}, authSetup(t)...)
	dial := func(header http.Header) (*websocket.Conn, *http.Response, error) {
		d := websocket.Dialer{HandshakeTimeout: testTimeout}
		c, resp, err := d.Dial(url, header)
		if c != nil {
			t.Cleanup(func() { c.Close() })
		}
		return c, resp, err
	}
	call := func(c *websocket.Conn, msg string) string {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(testTimeout))
		if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		_, b, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	c, _, err := dial(http.Header{"Authorization": {"Bearer " + aliceToken}})
	if err != nil {
		t.Fatal(err)
	}
	if got := call(c, callWhoami); !strings.Contains(got, `"result":"alice/bearer"`) {
		t.Errorf("whoami: %s", got)
	}
	checkDeniedBatch(t, []byte(call(c, deniedBatch)))

	c, _, err = dial(http.Header{"Authorization": {"Bearer " + signJWT(t, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := call(c, callWhoami); !strings.Contains(got, `"result":"jwt/jwt"`) {
		t.Errorf("whoami with a JWT: %s", got)
	}
	for _, h := range []http.Header{nil, {"Authorization": {"Bearer nope-0123456789abcdef"}},
		{"Authorization": {"Bearer " + signJWT(t, -61*time.Second)}}} {
		_, resp, err := dial(h)
		if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("upgrade with %v: %v, %v; want 401 with WWW-Authenticate", h, resp, err)
		}
	}
}

func TestAuthSSE(t *testing.T) {
	for _, std := range []bool{false, true} {
		url := startHTTPAuth(t, std, &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t)})}, authSetup(t)...)
		resp, body := httpDo(t, url, deniedBatch, "Accept", "text/event-stream", "Authorization", "Bearer "+aliceToken)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("std %v: %d %s", std, resp.StatusCode, body)
		}
		checkDeniedBatch(t, []byte(body))
		resp, body = httpDo(t, url, callWhoami, "Accept", "text/event-stream", "Authorization", "Bearer "+signJWT(t, -61*time.Second))
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "stale token") {
			t.Errorf("std %v, stale JWT: %d %s", std, resp.StatusCode, body)
		}
		resp, _ = httpDo(t, url, callWhoami, "Accept", "text/event-stream")
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("std %v, no token: %d", std, resp.StatusCode)
		}
	}
}

// TestAuthDocuments: a document needs the credential too; the health
// endpoints do not (probes carry none).
func TestAuthDocuments(t *testing.T) {
	for _, std := range []bool{false, true} {
		docs := map[string]func() ([]byte, error){"/doc.json": func() ([]byte, error) { return []byte(`{}`), nil }}
		url := startHTTPAuth(t, std, &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t)}), Documents: docs})
		if resp, _ := httpDo(t, url+"/doc.json", ""); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("std %v: GET /doc.json without a token: %d", std, resp.StatusCode)
		}
		if resp, _ := httpDo(t, url+"/doc.json", "", "Authorization", "Bearer "+aliceToken); resp.StatusCode != 200 {
			t.Errorf("std %v: GET /doc.json: %d", std, resp.StatusCode)
		}
		if resp, _ := httpDo(t, url+"/healthz", ""); resp.StatusCode != 200 {
			t.Errorf("std %v: GET /healthz: %d", std, resp.StatusCode)
		}
	}
}

// TestAuthRoutes: a route of its own (an MCP endpoint) needs the
// credential too, and its handler learns the identity.
func TestAuthRoutes(t *testing.T) {
	routes := map[string]fasthttp.RequestHandler{"/mcp": func(ctx *fasthttp.RequestCtx) {
		name := "none"
		if id := RequestIdentityTest(ctx); id != nil {
			name = id.Name
		}
		ctx.SetBodyString(name)
	}}
	url := startHTTPAuth(t, false, &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t)}), Routes: routes})
	if resp, body := httpDo(t, url+"/mcp", wsSubtract); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST /mcp without a token: %d %s", resp.StatusCode, body)
	}
	if resp, body := httpDo(t, url+"/mcp", ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /mcp without a token: %d %s", resp.StatusCode, body)
	}
	if resp, body := httpDo(t, url+"/mcp", wsSubtract, "Authorization", "Bearer "+aliceToken); resp.StatusCode != 200 || body != "alice" {
		t.Errorf("POST /mcp: %d %s", resp.StatusCode, body)
	}
}
