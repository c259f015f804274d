package main

import (
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testAS is an authorization server of the test's own on loopback: its
// RFC 8414 metadata and its JWKS, whose keys the test swaps (rotation).
type testAS struct {
	srv      *httptest.Server
	mu       sync.Mutex
	keys     []*rsaKey
	jwksHits atomic.Int32
}

type rsaKey struct {
	kid  string
	priv *rsa.PrivateKey
}

func newRSAKey(t *testing.T, kid string) *rsaKey {
	t.Helper()
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &rsaKey{kid: kid, priv: priv}
}

func newTestAS(t *testing.T, keys ...*rsaKey) *testAS {
	as := &testAS{keys: keys}
	as.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			base := "http://" + r.Host // not as.srv: a request may come before NewServer returned
			json.NewEncoder(w).Encode(map[string]string{"issuer": base, "jwks_uri": base + "/jwks",
				"authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token"})
		case "/jwks":
			as.jwksHits.Add(1)
			as.mu.Lock()
			var keys []map[string]string
			for _, k := range as.keys {
				keys = append(keys, map[string]string{"kty": "RSA", "kid": k.kid, "alg": "RS256", "use": "sig",
					"n": b64(k.priv.N.Bytes()), "e": b64(big.NewInt(int64(k.priv.E)).Bytes())})
			}
			as.mu.Unlock()
			json.NewEncoder(w).Encode(map[string]any{"keys": keys})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(as.srv.Close)
	return as
}

func (as *testAS) publish(keys ...*rsaKey) {
	as.mu.Lock()
	as.keys = keys
	as.mu.Unlock()
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// signJWT signs claims with header, by sign (nil: no signature).
func signJWT(t *testing.T, header, claims map[string]any, sign func(input []byte) []byte) string {
	t.Helper()
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	input := b64(h) + "." + b64(c)
	if sign == nil {
		return input + "."
	}
	return input + "." + b64(sign([]byte(input)))
}

func (k *rsaKey) sign(input []byte) []byte {
	sum := sha256.Sum256(input)
	sig, err := rsa.SignPKCS1v15(rand.Reader, k.priv, crypto.SHA256, sum[:])
	if err != nil {
		panic(err)
	}
	return sig
}

// TestBinaryMCPOAuth: jetrpc serve --mcp --mcp-auth-issuer with an
// authorization server of the test's own. The metadata is public; every
// bad token is 401 with the OAuth challenge saying why; a token without a
// tool's scope sees less in tools/list and gets 403 insufficient_scope
// with the scope to step up to; a rotated-in key is accepted without a
// restart, and a token already accepted stays so until it expires.
func TestBinaryMCPOAuth(t *testing.T) {
	k1, k2 := newRSAKey(t, "k1"), newRSAKey(t, "k2")
	as := newTestAS(t, k1)
	p := startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "127.0.0.1:0", "--mcp",
		"--mcp-auth-issuer", as.srv.URL, "--mcp-scope", "*=mcp", "--mcp-scope", "add=mcp math",
		"--mcp-jwks-refresh", "1s")
	addr := p.stderr.listening(t, "http")["http"]
	base := "http://" + addr
	resource := base + "/mcp"
	meta := base + "/.well-known/oauth-protected-resource/mcp"

	// The protected resource metadata, without a token, at both paths.
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		want := `{"resource":"` + resource + `","authorization_servers":["` + as.srv.URL + `"],"scopes_supported":["mcp","math"],"bearer_methods_supported":["header"],"resource_name":"jetrpc MCP"}`
		if res.StatusCode != 200 || string(body) != want {
			t.Fatalf("GET %s: %d %s, want %s", path, res.StatusCode, body, want)
		}
	}

	claims := func(over map[string]any) map[string]any {
		c := map[string]any{"iss": as.srv.URL, "sub": "alice", "aud": resource, "client_id": "c1", "scope": "mcp",
			"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(), "jti": fmt.Sprint(time.Now().UnixNano())}
		for k, v := range over {
			c[k] = v
		}
		return c
	}
	hdr := func(k *rsaKey) map[string]any { return map[string]any{"alg": "RS256", "kid": k.kid, "typ": "at+jwt"} }
	token := func(k *rsaKey, over map[string]any) string { return signJWT(t, hdr(k), claims(over), k.sign) }

	// post sends a request of revision 2026-07-28 (no session); body is
	// METHOD[ NAME] PARAMS.
	post := func(tok, body string) (int, string, string) {
		t.Helper()
		method, params, _ := strings.Cut(body, " {")
		method, name, _ := strings.Cut(method, " ")
		params = "{" + params
		params = strings.TrimSuffix(params, "}")
		if params != "{" {
			params += ","
		}
		params += `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
		req, _ := http.NewRequest("POST", resource, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(b), res.Header.Get("WWW-Authenticate")
	}
	const list = `tools/list {}`
	refused := func(name, tok, reason string) {
		t.Helper()
		status, body, ch := post(tok, list)
		want := `Bearer error="invalid_token", error_description="` + reason + `", resource_metadata="` + meta + `", scope="mcp"`
		if reason == "" {
			want = `Bearer resource_metadata="` + meta + `", scope="mcp"`
		}
		if status != 401 || ch != want {
			t.Errorf("%s: %d %q %s, want 401 %q", name, status, ch, body, want)
		}
	}

	// Refusals (the keys are fetched at start or by the first token).
	refused("no token", "", "")
	good := token(k1, nil)
	if status, body, _ := post(good, list); status != 200 {
		t.Fatalf("good token: %d %s", status, body)
	}
	refused("expired", token(k1, map[string]any{"exp": time.Now().Add(-2 * time.Hour).Unix()}), "token expired")
	refused("wrong audience", token(k1, map[string]any{"aud": "http://other.example/mcp"}), "wrong audience")
	refused("wrong issuer", token(k1, map[string]any{"iss": "http://127.0.0.1:1"}), "wrong issuer")
	stranger := newRSAKey(t, "k1") // the right kid, another key
	refused("bad signature", signJWT(t, hdr(k1), claims(nil), stranger.sign), "bad signature")
	refused("alg none", signJWT(t, map[string]any{"alg": "none", "typ": "at+jwt"}, claims(nil), nil), "unsupported signing algorithm")
	pubDER, _ := x509.MarshalPKIXPublicKey(&k1.priv.PublicKey)
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	refused("HS256 with the public key", signJWT(t, map[string]any{"alg": "HS256", "kid": "k1", "typ": "at+jwt"}, claims(nil),
		func(input []byte) []byte { m := hmac.New(sha256.New, pubPEM); m.Write(input); return m.Sum(nil) }), "unsupported signing algorithm")
	time.Sleep(1100 * time.Millisecond) // past --mcp-jwks-refresh since the last fetch
	hits := as.jwksHits.Load()
	ghost := newRSAKey(t, "ghost")
	refused("unknown kid", token(ghost, nil), "unknown signing key")
	if got := as.jwksHits.Load(); got != hits+1 {
		t.Errorf("unknown kid: %d JWKS fetches, want exactly one refresh", got-hits)
	}
	refused("unknown kid again", token(ghost, nil), "unknown signing key")
	if got := as.jwksHits.Load(); got != hits+1 {
		t.Errorf("a second unknown kid within --mcp-jwks-refresh fetched the keys again (%d)", got-hits)
	}

	// Scopes: tools/list differs, add needs math: 403 with the step-up challenge.
	_, body, _ := post(good, list)
	if strings.Contains(body, `"name":"add"`) || !strings.Contains(body, `"name":"echo"`) {
		t.Errorf("tools/list with scope mcp: %s", body)
	}
	const add = `tools/call add {"name":"add","arguments":{"a":2,"b":3}}`
	status, body, ch := post(good, add)
	if want := `Bearer error="insufficient_scope", scope="mcp math", resource_metadata="` + meta + `"`; status != 403 || ch != want {
		t.Errorf("add with scope mcp: %d %q %s, want 403 %q", status, ch, body, want)
	}
	math := token(k1, map[string]any{"scope": "mcp math"})
	if _, body, _ = post(math, list); !strings.Contains(body, `"name":"add"`) {
		t.Errorf("tools/list with scope mcp math: %s", body)
	}
	if status, body, _ = post(math, add); status != 200 || !strings.Contains(body, `"structuredContent":{"sum":5}`) {
		t.Errorf("add with scope mcp math: %d %s", status, body)
	}

	// Rotation: the server now signs with k2 only; no restart.
	as.publish(k2)
	time.Sleep(1100 * time.Millisecond)
	if status, body, _ = post(token(k2, nil), list); status != 200 {
		t.Errorf("a token of the rotated-in key: %d %s", status, body)
	}
	if status, body, _ = post(good, list); status != 200 {
		t.Errorf("a token of the old key, accepted before, until it expires: %d %s", status, body)
	}
	refused("a new token of the withdrawn key", token(k1, nil), "unknown signing key")
}

// TestServeMCPAuthFlags: bad values of the OAuth flags are usage errors
// naming the flag.
func TestServeMCPAuthFlags(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	empty := filepath.Join(dir, "empty")
	os.WriteFile(secret, []byte("s3cret\n"), 0o600)
	os.WriteFile(empty, nil, 0o600)
	bad := func(want string, args ...string) {
		t.Helper()
		var stderr strings.Builder
		_, err := parseServe(args, &stderr)
		if err == nil || !strings.Contains(stderr.String(), want) {
			t.Errorf("%q: error %v, stderr %q; want %q", args, err, stderr.String(), want)
		}
	}
	const iss = "https://as.example.com"
	bad("--mcp-auth-issuer: needs --mcp", "--mcp-auth-issuer", iss)
	bad(`--mcp-auth-issuer "http://as.example.com": want https (http only on loopback)`, "--mcp", "--mcp-auth-issuer", "http://as.example.com")
	bad(`--mcp-auth-issuer "as.example.com": want an absolute https URL`, "--mcp", "--mcp-auth-issuer", "as.example.com")
	bad("--mcp-auth-issuer: needs the HTTP listener (--http ADDR)", "--mcp", "--stdio", "--http", "", "--mcp-auth-issuer", iss)
	bad(`--mcp-resource "https://x.example/mcp#f": resource "https://x.example/mcp#f" has a fragment`, "--mcp", "--mcp-auth-issuer", iss, "--mcp-resource", "https://x.example/mcp#f")
	bad("--mcp-resource: needs --mcp-auth-issuer or --mcp-introspect", "--mcp", "--mcp-resource", "https://x.example/mcp")
	bad(`--mcp-scope: scope rule "echo": want NAME=SCOPE`, "--mcp", "--mcp-auth-issuer", iss, "--mcp-scope", "echo")
	bad(`--mcp-scope: scope rule "echo=" names no scope`, "--mcp", "--mcp-auth-issuer", iss, "--mcp-scope", "echo=")
	bad("--mcp-scope: needs --mcp-auth-issuer or --mcp-introspect", "--mcp", "--mcp-scope", "echo=mcp")
	bad("--mcp-introspect: needs --mcp-client-id and --mcp-client-secret-file", "--mcp", "--mcp-introspect", iss+"/introspect")
	bad("--mcp-client-secret-file "+dir+"/none: no such file or directory", "--mcp", "--mcp-introspect", iss+"/introspect",
		"--mcp-client-id", "rs", "--mcp-client-secret-file", dir+"/none")
	bad("--mcp-client-secret-file "+empty+": the file is empty", "--mcp", "--mcp-introspect", iss+"/introspect",
		"--mcp-client-id", "rs", "--mcp-client-secret-file", empty)
	bad("--mcp-client-id and --mcp-client-secret-file: need --mcp-introspect", "--mcp", "--mcp-client-id", "rs")
	bad("--mcp-jwks-refresh 0s: must be positive", "--mcp", "--mcp-auth-issuer", iss, "--mcp-jwks-refresh", "0")

	var stderr strings.Builder
	cfg, err := parseServe([]string{"--mcp", "--mcp-introspect", iss + "/introspect", "--mcp-client-id", "rs",
		"--mcp-client-secret-file", secret, "--mcp-scope", "admin_*=admin"}, &stderr)
	if err != nil {
		t.Fatal(stderr.String())
	}
	if a := cfg.mcp.auth; a.secret != "s3cret" || a.rules.Needed("admin_x") != "admin" ||
		strings.Join(a.paths, " ") != "/.well-known/oauth-protected-resource/mcp /.well-known/oauth-protected-resource" {
		t.Errorf("parsed %+v", a)
	}
}

// TestBinaryMCPIntrospect: jetrpc serve --mcp --mcp-introspect checks an
// opaque token at the introspection endpoint, as the client
// --mcp-client-id with the secret of --mcp-client-secret-file, and applies
// the scopes it answers.
func TestBinaryMCPIntrospect(t *testing.T) {
	var asked atomic.Int32
	var resource atomic.Value
	intro := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, secret, ok := r.BasicAuth(); !ok || id != "rs" || secret != "s3cret" {
			http.Error(w, "bad client", http.StatusUnauthorized)
			return
		}
		asked.Add(1)
		aud, _ := resource.Load().(string)
		switch r.PostFormValue("token") {
		case "opaque-alice":
			json.NewEncoder(w).Encode(map[string]any{"active": true, "sub": "alice", "scope": "mcp", "aud": aud,
				"exp": time.Now().Add(time.Hour).Unix()})
		default:
			json.NewEncoder(w).Encode(map[string]any{"active": false})
		}
	}))
	defer intro.Close()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "127.0.0.1:0", "--mcp",
		"--mcp-introspect", intro.URL+"/introspect", "--mcp-client-id", "rs", "--mcp-client-secret-file", secret,
		"--mcp-scope", "*=mcp", "--mcp-scope", "add=mcp math")
	addr := p.stderr.listening(t, "http")["http"]
	resource.Store("http://" + addr + "/mcp")
	post := func(tok, name string) (int, string, string) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{"text":"x","a":1,"b":2},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		req, _ := http.NewRequest("POST", "http://"+addr+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", name)
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(b), res.Header.Get("WWW-Authenticate")
	}
	if status, body, _ := post("opaque-alice", "echo"); status != 200 || !strings.Contains(body, `"text":"x"`) {
		t.Errorf("an active token: %d %s", status, body)
	}
	if status, body, _ := post("opaque-alice", "echo"); status != 200 || asked.Load() != 1 {
		t.Errorf("again: %d %s, %d introspections (want the answer cached: 1)", status, body, asked.Load())
	}
	if status, _, ch := post("opaque-alice", "add"); status != 403 || !strings.Contains(ch, `error="insufficient_scope", scope="mcp math"`) {
		t.Errorf("add with scope mcp: %d %q", status, ch)
	}
	if status, _, ch := post("opaque-revoked", "echo"); status != 401 || !strings.Contains(ch, `error="invalid_token", error_description="token not active"`) {
		t.Errorf("an inactive token: %d %q", status, ch)
	}
}
