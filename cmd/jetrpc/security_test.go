package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/golang-jwt/jwt/v5"
	"github.com/jetrpc/jetrpc/auth"
)

const (
	testSecretHex = "0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	opsToken      = "ops-token-0123456789abcdef"
	readerToken   = "reader-token-0123456789ab"
)

// securityFiles writes a JWT secret and a tokens file: ops may call
// everything, reader only sum and get_*.
func securityFiles(t *testing.T) (secretFile, tokensFile string) {
	t.Helper()
	dir := t.TempDir()
	secretFile, tokensFile = filepath.Join(dir, "jwt.hex"), filepath.Join(dir, "tokens")
	if err := os.WriteFile(secretFile, []byte(testSecretHex+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens := "# name token [methods]\nops " + opsToken + "\nreader " + readerToken + " sum get_*\n"
	if err := os.WriteFile(tokensFile, []byte(tokens), 0o600); err != nil {
		t.Fatal(err)
	}
	return secretFile, tokensFile
}

func testJWT(t *testing.T, skew time.Duration) string {
	t.Helper()
	secret := make([]byte, 32)
	for i := range secret {
		secret[i] = byte(i)
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iat": jwt.NewNumericDate(time.Now().Add(skew))}).
		SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestServeSecurityFlags: the options the flags set, and a usage error
// naming the flag for each bad value.
func TestServeSecurityFlags(t *testing.T) {
	secretFile, tokensFile := securityFiles(t)
	parse := func(args ...string) (*serveConfig, string, error) {
		var stderr strings.Builder
		cfg, err := parseServe(args, &stderr)
		return cfg, stderr.String(), err
	}
	cfg, _, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.sec.options()
	if o.Auth != nil || o.Origins != nil || o.RateLimit != 0 || o.MaxConnsPerIP != 0 || cfg.sec.rules != nil {
		t.Errorf("defaults: %+v", o)
	}
	cfg, _, err = parse("--jwt-secret", secretFile, "--tokens", tokensFile, "--allow-origin", "https://a.example,null",
		"--rate-limit", "2.5", "--rate-burst", "10", "--max-conns-per-ip", "8")
	if err != nil {
		t.Fatal(err)
	}
	o = cfg.sec.options()
	if o.Auth == nil || o.RateLimit != 2.5 || o.RateBurst != 10 || o.MaxConnsPerIP != 8 ||
		!o.Origins.Allow("https://a.example", "h") || !o.Origins.Allow("null", "h") || o.Origins.Allow("https://b.example", "h") {
		t.Errorf("options %+v", o)
	}
	if r := cfg.sec.rules; strings.Join(r["reader"], " ") != "sum get_*" || r["*"] == nil || r[""] == nil {
		t.Errorf("rules %v", r)
	}
	for _, c := range []struct {
		r     auth.Request
		want  string
		wantE string
	}{
		{auth.Request{Transport: "http", Token: []byte(opsToken)}, "ops", ""},
		{auth.Request{Transport: "http", Token: []byte(testJWT(t, 0))}, "jwt", ""},
		{auth.Request{Transport: "stdio"}, "local", ""},
		{auth.Request{Transport: "tcp", Remote: &net.UnixAddr{Name: "@", Net: "unix"}}, "local", ""},
		{auth.Request{Transport: "tcp", Remote: &net.TCPAddr{}}, "", "missing credentials"},
		{auth.Request{Transport: "http", Token: []byte(testJWT(t, -2*time.Minute))}, "", "stale token"},
	} {
		id, err := o.Auth.Authenticate(&c.r)
		switch {
		case c.wantE != "" && (err == nil || auth.Reason(err) != c.wantE):
			t.Errorf("%+v: %v %v, want %s", c.r, id, err, c.wantE)
		case c.wantE == "" && (err != nil || id.Name != c.want):
			t.Errorf("%+v: %v %v, want %s", c.r, id, err, c.want)
		}
	}

	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	short, notHex := write("short", "0x0102"), write("nothex", strings.Repeat("zz", 32))
	badTokens, shortToken := write("bad", "justaname\n"), write("shorttok", "a abc\n")
	bad := func(want string, args ...string) {
		t.Helper()
		_, stderr, err := parse(args...)
		if err == nil || !strings.Contains(stderr, want) {
			t.Errorf("%q: error %v, stderr %q; want %q", args, err, stderr, want)
		}
	}
	bad("--jwt-secret "+short+": the JWT secret is 2 bytes; it must be 32", "--jwt-secret", short)
	bad("--jwt-secret "+notHex+": the JWT secret must be 32 bytes in hex", "--jwt-secret", notHex)
	bad("--jwt-secret "+dir+"/none: no such file or directory", "--jwt-secret", dir+"/none")
	bad("--tokens "+badTokens+": line 1: want NAME TOKEN", "--tokens", badTokens)
	bad("--tokens "+shortToken+": line 1: the token of \"a\" is shorter than 16 bytes", "--tokens", shortToken)
	bad(`--allow-origin "example.com": origin example.com`, "--allow-origin", "example.com")
	bad("--rate-limit -1: must not be negative", "--rate-limit", "-1")
	bad("--rate-burst -2: must not be negative", "--rate-limit", "1", "--rate-burst", "-2")
	bad("--rate-burst: needs --rate-limit", "--rate-burst", "5")
	bad("--max-conns-per-ip -1: must not be negative", "--max-conns-per-ip", "-1")
	if code := serve(context.Background(), []string{"--jwt-secret", short}, nil, io.Discard, io.Discard); code != 2 {
		t.Errorf("serve with a bad secret: exit %d, want 2", code)
	}
}

// httpPost posts body to url with the headers given as pairs.
func httpPost(t *testing.T, url, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
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
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestBinarySecurity: jetrpc serve --jwt-secret --tokens --allow-origin
// over HTTP, WebSocket and TCP.
func TestBinarySecurity(t *testing.T) {
	secretFile, tokensFile := securityFiles(t)
	p := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0",
		"--jwt-secret", secretFile, "--tokens", tokensFile, "--allow-origin", "https://app.example")
	addrs := p.stderr.listening(t, "tcp", "http")
	url := "http://" + addrs["http"] + "/"
	const call = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`

	f := func(what string, wantStatus int, want string, header ...string) {
		t.Helper()
		status, h, body := httpPost(t, url, call, header...)
		if status != wantStatus || !strings.Contains(body, want) {
			t.Errorf("%s: %d %s, want %d %s", what, status, body, wantStatus, want)
		}
		if status == 401 && !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: WWW-Authenticate %q", what, h.Get("WWW-Authenticate"))
		}
	}
	f("jwt", 200, `"result":19`, "Authorization", "Bearer "+testJWT(t, 0))
	f("token", 200, `"result":19`, "Authorization", "Bearer "+opsToken)
	f("none", 401, "missing credentials")
	f("stale jwt", 401, "stale token", "Authorization", "Bearer "+testJWT(t, -61*time.Second))
	f("allowed origin", 200, `"result":19`, "Authorization", "Bearer "+opsToken, "Origin", "https://app.example")
	f("foreign origin", 403, "origin not allowed", "Authorization", "Bearer "+opsToken, "Origin", "https://evil.example")

	// reader may call sum and get_data only; the rest of a batch is served.
	batch := `[{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1},` + call[:len(call)-2] + `2},` +
		`{"jsonrpc":"2.0","method":"get_data","id":3}]`
	_, _, body := httpPost(t, url, batch, "Authorization", "Bearer "+readerToken)
	for _, want := range []string{`"id":1,"result":3`, `"id":3,"result":["hello",5]`,
		`"id":2,"error":{"code":-32007,"message":"Forbidden","data":"method \"subtract\" is not allowed for this client"}`} {
		if !strings.Contains(body, want) {
			t.Errorf("reader's batch: %s lacks %s", body, want)
		}
	}

	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	ws, _, err := d.Dial("ws://"+addrs["http"]+"/ws", http.Header{"Authorization": {"Bearer " + testJWT(t, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := ws.WriteMessage(websocket.TextMessage, []byte(call)); err != nil {
		t.Fatal(err)
	}
	if _, b, err := ws.ReadMessage(); err != nil || !strings.Contains(string(b), `"result":19`) {
		t.Errorf("WebSocket: %s %v", b, err)
	}
	for _, h := range []http.Header{nil, {"Authorization": {"Bearer " + testJWT(t, 0)}, "Origin": {"null"}}} {
		if _, resp, err := d.Dial("ws://"+addrs["http"]+"/ws", h); err == nil || resp == nil || (resp.StatusCode != 401 && resp.StatusCode != 403) {
			t.Errorf("WebSocket with %v: %v %v", h, resp, err)
		}
	}

	nc, err := net.DialTimeout("tcp", addrs["tcp"], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	rd := bufio.NewReader(nc)
	line := func(msg string) string {
		t.Helper()
		if _, err := io.WriteString(nc, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		l, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if got := line(`{"jsonrpc":"2.0","method":"rpc.authenticate","params":["` + testJWT(t, 0) + `"],"id":0}`); !strings.Contains(got, `"name":"jwt"`) {
		t.Errorf("TCP rpc.authenticate: %s", got)
	}
	if got := line(call); !strings.Contains(got, `"result":19`) {
		t.Errorf("TCP call: %s", got)
	}
}

// TestBinaryRateLimit: a flood from one client gets 429 with Retry-After
// while another client (another identity) is served.
func TestBinaryRateLimit(t *testing.T) {
	_, tokensFile := securityFiles(t)
	p := startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "127.0.0.1:0", "--tokens", tokensFile,
		"--rate-limit", "5", "--max-conns-per-ip", "50")
	url := "http://" + p.stderr.listening(t, "http")["http"] + "/"
	const call = `{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}`
	limited := 0
	for range 20 {
		status, h, _ := httpPost(t, url, call, "Authorization", "Bearer "+opsToken)
		if status == 429 {
			if ra, err := strconv.Atoi(h.Get("Retry-After")); err != nil || ra < 1 {
				t.Errorf("Retry-After %q", h.Get("Retry-After"))
			}
			limited++
		}
	}
	if limited < 10 {
		t.Errorf("%d of 20 limited", limited)
	}
	if status, _, body := httpPost(t, url, call, "Authorization", "Bearer "+readerToken); status != 200 {
		t.Errorf("the other client: %d %s", status, body)
	}
}
