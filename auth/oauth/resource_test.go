package oauth_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/oauth"
)

func newResource(t *testing.T, m oauth.Metadata) *oauth.Resource {
	t.Helper()
	r, err := oauth.NewResource(m)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMetadataDocument(t *testing.T) {
	f := func(m oauth.Metadata, doc, paths, url string) {
		t.Helper()
		r := newResource(t, m)
		if got := string(r.Document()); got != doc {
			t.Errorf("document\n got %s\nwant %s", got, doc)
		}
		if got := strings.Join(r.Paths(), " "); got != paths {
			t.Errorf("paths %q, want %q", got, paths)
		}
		if r.MetadataURL() != url {
			t.Errorf("metadata URL %q, want %q", r.MetadataURL(), url)
		}
	}
	f(oauth.Metadata{Resource: "https://mcp.example.com/mcp", AuthorizationServers: []string{"https://auth.example.com"},
		ScopesSupported: []string{"tools:read", "files:write"}},
		`{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["tools:read","files:write"],"bearer_methods_supported":["header"]}`,
		"/.well-known/oauth-protected-resource/mcp /.well-known/oauth-protected-resource",
		"https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
	f(oauth.Metadata{Resource: "HTTPS://MCP.Example.com", AuthorizationServers: []string{"https://a.example.com/t1", "https://b.example.com"},
		ResourceName: "Tools & more", ResourceDocumentation: "https://mcp.example.com/docs?a=1&b=2"},
		`{"resource":"https://mcp.example.com","authorization_servers":["https://a.example.com/t1","https://b.example.com"],"bearer_methods_supported":["header"],"resource_name":"Tools & more","resource_documentation":"https://mcp.example.com/docs?a=1&b=2"}`,
		"/.well-known/oauth-protected-resource",
		"https://mcp.example.com/.well-known/oauth-protected-resource")
	f(oauth.Metadata{Resource: "http://127.0.0.1:8080/v1/mcp/", AuthorizationServers: []string{"http://127.0.0.1:9000"}},
		`{"resource":"http://127.0.0.1:8080/v1/mcp/","authorization_servers":["http://127.0.0.1:9000"],"bearer_methods_supported":["header"]}`,
		"/.well-known/oauth-protected-resource/v1/mcp /.well-known/oauth-protected-resource",
		"http://127.0.0.1:8080/.well-known/oauth-protected-resource/v1/mcp")
}

func TestNewResourceRefuses(t *testing.T) {
	f := func(m oauth.Metadata) {
		t.Helper()
		if _, err := oauth.NewResource(m); err == nil {
			t.Fatalf("NewResource(%+v) did not fail", m)
		}
	}
	as := []string{"https://auth.example.com"}
	f(oauth.Metadata{Resource: "https://mcp.example.com/mcp"})
	f(oauth.Metadata{Resource: "/mcp", AuthorizationServers: as})
	f(oauth.Metadata{Resource: "ftp://mcp.example.com/mcp", AuthorizationServers: as})
	f(oauth.Metadata{Resource: "https://mcp.example.com/mcp#frag", AuthorizationServers: as})
	f(oauth.Metadata{Resource: "https://mcp.example.com/mcp?x=1", AuthorizationServers: as})
	f(oauth.Metadata{Resource: "https://user@mcp.example.com/mcp", AuthorizationServers: as})
	f(oauth.Metadata{Resource: "https://mcp.example.com/mcp", AuthorizationServers: []string{"auth.example.com"}})
	f(oauth.Metadata{Resource: "https://mcp.example.com/mcp", AuthorizationServers: as, ScopesSupported: []string{"a b"}})
}

func TestChallenges(t *testing.T) {
	r := newResource(t, oauth.Metadata{Resource: "https://mcp.example.com/mcp", AuthorizationServers: []string{"https://auth.example.com"}})
	const meta = `resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`
	f := func(got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("challenge\n got %s\nwant %s", got, want)
		}
	}
	// 401 without a token: no error code (RFC 6750 §3.1).
	f(r.Unauthorized("", nil), `Bearer `+meta)
	f(r.Unauthorized("", auth.ErrNoCredentials), `Bearer `+meta)
	f(r.Unauthorized("tools:read files:read", auth.ErrNoCredentials), `Bearer `+meta+`, scope="tools:read files:read"`)
	// 401 with a refused token.
	f(r.Unauthorized("", oauth.ErrExpired), `Bearer error="invalid_token", error_description="token expired", `+meta)
	f(r.Unauthorized("mcp", oauth.ErrAudience), `Bearer error="invalid_token", error_description="wrong audience", `+meta+`, scope="mcp"`)
	f(r.Unauthorized("", errors.New("secret detail")), `Bearer error="invalid_token", error_description="invalid credentials", `+meta)
	f(r.Unauthorized("", &auth.Error{Reason: "a \"quoted\" \\ reason\n\u00e9"}),
		`Bearer error="invalid_token", error_description="a 'quoted' / reason???", `+meta)
	// 403, the step-up challenge.
	f(r.Forbidden("files:write", ""), `Bearer error="insufficient_scope", scope="files:write", `+meta)
	f(r.Forbidden("files:read files:write", "Additional file write permission required"),
		`Bearer error="insufficient_scope", scope="files:read files:write", `+meta+`, error_description="Additional file write permission required"`)
	f(r.Forbidden("bad\"scope", `say "please"`), `Bearer error="insufficient_scope", scope="badscope", `+meta+`, error_description="say 'please'"`)
	// Append adds to what is there.
	if got := string(r.AppendForbidden([]byte("x: "), "a", "")); got != `x: Bearer error="insufficient_scope", scope="a", `+meta {
		t.Errorf("append: %s", got)
	}
}

func TestScopeRules(t *testing.T) {
	rules, err := oauth.ParseScopeRules([]string{
		"read_file=files:read",
		"write_file=files:read files:write",
		"write_file=files:write admin",
		"admin_*=admin",
		"admin_peek=admin:read",
		"*=mcp",
		"file:///docs?lang=en=docs:read",
	})
	if err != nil {
		t.Fatal(err)
	}
	reader := &auth.Identity{Name: "a", Attrs: &oauth.Token{Scopes: []string{"mcp", "files:read"}}}
	writer := &auth.Identity{Name: "b", Attrs: &oauth.Token{Scopes: []string{"files:read", "files:write", "admin"}}}
	static := &auth.Identity{Name: "c", Scheme: "bearer"}
	f := func(name, needed string, readerOK, writerOK, staticOK bool) {
		t.Helper()
		if got := rules.Needed(name); got != needed {
			t.Errorf("Needed(%q) = %q, want %q", name, got, needed)
		}
		for _, c := range []struct {
			id   *auth.Identity
			want bool
		}{{reader, readerOK}, {writer, writerOK}, {static, staticOK}, {nil, needed == ""}} {
			if got := rules.Allowed(c.id, name); got != c.want {
				t.Errorf("Allowed(%v, %q) = %v", c.id, name, got)
			}
		}
	}
	f("read_file", "files:read", true, true, false)
	f("write_file", "files:read files:write admin", false, true, false)
	f("admin_reboot", "admin", false, true, false)
	f("admin_peek", "admin:read", false, false, false)
	f("echo", "mcp", true, false, false)
	f("file:///docs?lang=en", "docs:read", false, false, false)
	if got := strings.Join(rules.Scopes(), " "); got != "files:read files:write admin admin:read mcp docs:read" {
		t.Errorf("Scopes() = %q", got)
	}

	var none *oauth.ScopeRules
	if !none.Allowed(nil, "x") || none.Needed("x") != "" || none.Scopes() != nil {
		t.Error("nil rules must allow everything")
	}
	empty, _ := oauth.ParseScopeRules(nil)
	if !empty.Allowed(nil, "x") {
		t.Error("empty rules must allow everything")
	}
	for _, bad := range []string{"tool", "=scope", "tool=", "tool= ", "a*b=s", "tool=sc\"ope"} {
		if _, err := oauth.ParseScopeRules([]string{bad}); err == nil {
			t.Errorf("ParseScopeRules(%q) did not fail", bad)
		}
	}
}
