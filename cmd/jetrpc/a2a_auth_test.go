package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestBinaryA2AOAuth: jetrpc serve --a2a with the OAuth flags of --mcp
// and an authorization server of the test's own (mcp_auth_test.go). The
// card is public and declares the OAuth scheme in 1.0's and 0.3's
// shapes (the authorization server's metadata and endpoints, the "*"
// rule's scopes); /a2a without a token is 401 with the same challenge as
// /mcp; a valid token is served on both wires; one without the "*"
// rule's scopes is 403 with the step-up challenge; a token for another
// resource is refused.
func TestBinaryA2AOAuth(t *testing.T) {
	k1 := newRSAKey(t, "k1")
	as := newTestAS(t, k1)
	p := startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "127.0.0.1:0", "--mcp", "--a2a",
		"--mcp-auth-issuer", as.srv.URL, "--mcp-scope", "*=mcp agent", "--mcp-scope", "add=mcp math")
	base := "http://" + p.stderr.listening(t, "http")["http"]
	resource := base + "/mcp"
	meta := base + "/.well-known/oauth-protected-resource/mcp"

	// The card: public, at both paths; the flow's endpoints come once the
	// authorization server's metadata is read (in the background).
	type flow struct {
		AuthorizationURL string            `json:"authorizationUrl"`
		TokenURL         string            `json:"tokenUrl"`
		Scopes           map[string]string `json:"scopes"`
	}
	type scheme struct {
		Type                 string                            `json:"type"`
		OAuth2MetadataURL    string                            `json:"oauth2MetadataUrl"`
		Flows                struct{ AuthorizationCode *flow } `json:"flows"`
		OAuth2SecurityScheme *struct {
			OAuth2MetadataURL string                            `json:"oauth2MetadataUrl"`
			Flows             struct{ AuthorizationCode *flow } `json:"flows"`
		} `json:"oauth2SecurityScheme"`
	}
	type card struct {
		SecuritySchemes      map[string]scheme     `json:"securitySchemes"`
		Security             []map[string][]string `json:"security"`
		SecurityRequirements []struct {
			Schemes map[string]struct{ List []string } `json:"schemes"`
		} `json:"securityRequirements"`
	}
	getCard := func(path string) (card, string) {
		t.Helper()
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("GET %s without a token: %d %s", path, res.StatusCode, b)
		}
		var c card
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("GET %s: %v: %s", path, err, b)
		}
		return c, string(b)
	}
	var c card
	var raw string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, raw = getCard("/.well-known/agent-card.json")
		if s, ok := c.SecuritySchemes["oauth"]; ok && s.Flows.AuthorizationCode != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the card declares no OAuth flow: %s", raw)
		}
	}
	wantFlow := flow{AuthorizationURL: as.srv.URL + "/authorize", TokenURL: as.srv.URL + "/token",
		Scopes: map[string]string{"mcp": "", "agent": "", "math": ""}}
	wantMeta := as.srv.URL + "/.well-known/oauth-authorization-server"
	s := c.SecuritySchemes["oauth"]
	// 0.3: an OpenAPI security scheme, and security.
	if s.Type != "oauth2" || s.OAuth2MetadataURL != wantMeta || fmt.Sprint(*s.Flows.AuthorizationCode) != fmt.Sprint(wantFlow) {
		t.Errorf("0.3 scheme: %+v, want oauth2 %s %+v", s, wantMeta, wantFlow)
	}
	if len(c.Security) != 1 || fmt.Sprint(c.Security[0]) != "map[oauth:[mcp agent]]" {
		t.Errorf("0.3 security: %v", c.Security)
	}
	// 1.0: oauth2SecurityScheme, and securityRequirements.
	if o := s.OAuth2SecurityScheme; o == nil || o.OAuth2MetadataURL != wantMeta || o.Flows.AuthorizationCode == nil ||
		fmt.Sprint(*o.Flows.AuthorizationCode) != fmt.Sprint(wantFlow) {
		t.Errorf("1.0 scheme: %s", raw)
	}
	if len(c.SecurityRequirements) != 1 || fmt.Sprint(c.SecurityRequirements[0].Schemes["oauth"].List) != "[mcp agent]" {
		t.Errorf("1.0 securityRequirements: %s", raw)
	}
	if _, raw2 := getCard("/a2a/.well-known/agent-card.json"); raw2 != raw {
		t.Errorf("the card at /a2a/.well-known/agent-card.json: %s", raw2)
	}

	token := func(over map[string]any) string {
		c := map[string]any{"iss": as.srv.URL, "sub": "alice", "aud": resource, "client_id": "c1", "scope": "mcp agent",
			"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(), "jti": fmt.Sprint(time.Now().UnixNano())}
		for k, v := range over {
			c[k] = v
		}
		return signJWT(t, map[string]any{"alg": "RS256", "kid": k1.kid, "typ": "at+jwt"}, c, k1.sign)
	}
	post := func(url, version, tok, body string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if version != "" {
			req.Header.Set("A2A-Version", version)
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		res, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(b), res.Header.Get("WWW-Authenticate")
	}
	const get03 = `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"nope"}}`
	const get10 = `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"nope"}}`

	// No token: 401 with the challenge of /mcp.
	_, _, mcpChallenge := post(resource, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	want := `Bearer resource_metadata="` + meta + `", scope="mcp agent"`
	if mcpChallenge != want {
		t.Errorf("/mcp without a token: %q, want %q", mcpChallenge, want)
	}
	for _, v := range []struct{ version, body string }{{"", get03}, {"1.0", get10}} {
		if status, body, ch := post(base+"/a2a", v.version, "", v.body); status != 401 || ch != want {
			t.Errorf("/a2a %q without a token: %d %q %s, want 401 %q", v.version, status, ch, body, want)
		}
	}

	// A valid token: the endpoint answers (the task is unknown: -32001).
	good := token(nil)
	for _, v := range []struct{ version, body string }{{"", get03}, {"1.0", get10}} {
		if status, body, _ := post(base+"/a2a", v.version, good, v.body); status != 200 || !strings.Contains(body, `"code":-32001`) {
			t.Errorf("/a2a %q with a valid token: %d %s, want 200 and task not found", v.version, status, body)
		}
	}

	// A token without the "*" rule's scopes: 403 with the step-up challenge.
	want403 := `Bearer error="insufficient_scope", scope="mcp agent", resource_metadata="` + meta + `"`
	if status, body, ch := post(base+"/a2a", "1.0", token(map[string]any{"scope": "mcp"}), get10); status != 403 || ch != want403 {
		t.Errorf("/a2a with scope mcp only: %d %q %s, want 403 %q", status, ch, body, want403)
	}

	// A token for another resource, or expired: refused, saying why.
	for _, r := range []struct {
		name, tok, why string
	}{
		{"wrong audience", token(map[string]any{"aud": "http://other.example/a2a"}), "wrong audience"},
		{"expired", token(map[string]any{"exp": time.Now().Add(-2 * time.Hour).Unix()}), "token expired"},
	} {
		want := `Bearer error="invalid_token", error_description="` + r.why + `", resource_metadata="` + meta + `", scope="mcp agent"`
		if status, body, ch := post(base+"/a2a", "1.0", r.tok, get10); status != 401 || ch != want {
			t.Errorf("/a2a %s: %d %q %s, want 401 %q", r.name, status, ch, body, want)
		}
	}
}
