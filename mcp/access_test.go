package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/oauth"
	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// accessEndpoint serves the demo tools plus "whoami" (the caller's
// identity as its handler sees it), a resource and a prompt, with scope
// rules: echo needs mcp, add needs mcp and math, the resource and the
// prompt need docs. The test's identity is the X-Scopes header (absent:
// none), a stand-in for netserver's guard.
func accessEndpoint(t *testing.T) *endpoint {
	t.Helper()
	rules, err := oauth.ParseScopeRules([]string{"echo=mcp", "add=mcp math", "test://doc=docs", "greet=docs", "whoami=mcp"})
	require.NoError(t, err)
	s := mcp.New(mcp.Implementation{Name: "test", Version: "1"}, &mcp.Options{Access: rules})
	require.NoError(t, mcpdemo.Register(s))
	require.NoError(t, s.AddTool(mcp.NewTool("whoami", "Who calls.", func(ctx context.Context, _ struct{}) (*mcp.Result, error) {
		id := auth.IdentityOf(ctx)
		if id == nil {
			return mcp.TextResult("nobody"), nil
		}
		return mcp.TextResult(id.Name + " " + strings.Join(oauth.TokenOf(id).Scopes, ",")), nil
	})))
	require.NoError(t, s.AddResource(&mcp.Resource{URI: "test://doc", Name: "doc",
		Read: func(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: uri, Text: "hello"}}, nil
		}}))
	require.NoError(t, s.AddPrompt(&mcp.Prompt{Name: "greet",
		Get: func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{}, nil
		}}))
	res, err := oauth.NewResource(oauth.Metadata{Resource: "https://mcp.example.com/mcp", AuthorizationServers: []string{"https://as.example.com"}})
	require.NoError(t, err)
	return serveHTTP(t, s, &mcphttp.Options{
		Identity: func(ctx *fasthttp.RequestCtx) *auth.Identity {
			h := ctx.Request.Header.Peek("X-Scopes")
			if h == nil {
				return nil
			}
			name := "alice"
			if u := ctx.Request.Header.Peek("X-User"); u != nil {
				name = string(u)
			}
			return &auth.Identity{Name: name, Scheme: oauth.Scheme, Attrs: &oauth.Token{Subject: name, Scopes: strings.Fields(string(h))}}
		},
		Forbidden: func(dst []byte, id *auth.Identity, needed string) []byte {
			return res.AppendForbidden(dst, oauth.StepUpScope(id, needed), "")
		},
	})
}

// TestHTTPAccess: the lists show only what the caller's scopes allow, and
// a call of anything else is 403 with the step-up challenge (the scopes
// held plus those needed), on every revision, with and without sessions;
// the handler sees the identity.
func TestHTTPAccess(t *testing.T) {
	e := accessEndpoint(t)
	const meta = `https://mcp.example.com/.well-known/oauth-protected-resource/mcp`
	for _, version := range []string{mcp.Version20250326, "2025-06-18", "2025-11-25", mcp.Modern} {
		t.Run(version, func(t *testing.T) {
			sid := ""
			if version != mcp.Modern {
				sid = e.initialize(version)
			}
			do := func(scopes, method, name, params string) (int, string, string) {
				t.Helper()
				h := hdr{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": version}
				if scopes != "-" {
					h["X-Scopes"] = scopes
				}
				if version == mcp.Modern {
					h["Mcp-Method"], h["Mcp-Name"] = method, name
					params = strings.TrimSuffix(params, "}") + sep(params) + modernMeta + "}"
				}
				res, body := e.do("POST", h, `{"jsonrpc":"2.0","id":3,"method":"`+method+`","params":`+params+`}`)
				return res.StatusCode, body, res.Header.Get("WWW-Authenticate")
			}
			names := func(scopes, method string) string {
				t.Helper()
				status, body, _ := do(scopes, method, "", `{}`)
				require.Equal(t, 200, status, body)
				var out []string
				for _, part := range strings.Split(body, `"name":"`)[1:] {
					out = append(out, part[:strings.IndexByte(part, '"')])
				}
				return strings.Join(out, " ")
			}
			require.Equal(t, "countdown", names("-", "tools/list"))
			if version == mcp.Modern { // a list that differs by caller is never "public"
				for _, scopes := range []string{"-", "mcp math docs"} {
					_, body, _ := do(scopes, "tools/list", "", `{}`)
					require.Contains(t, body, `"ttlMs":0,"cacheScope":"private"`)
				}
			}
			require.Equal(t, "echo countdown whoami", names("mcp", "tools/list"))
			require.Equal(t, "echo add countdown whoami", names("mcp math", "tools/list"))
			require.Equal(t, "", names("mcp", "resources/list"))
			require.Equal(t, "doc", names("docs", "resources/list"))
			require.Equal(t, "", names("mcp", "prompts/list"))
			require.Equal(t, "greet", names("docs", "prompts/list"))

			status, body, challenge := do("mcp", "tools/call", "add", `{"name":"add","arguments":{"a":1,"b":2}}`)
			require.Equal(t, 403, status, body)
			require.Contains(t, body, `"error":{"code":-32007,"message":"Forbidden","data":{"name":"add","scope":"mcp math"}}`)
			require.Equal(t, `Bearer error="insufficient_scope", scope="mcp math", resource_metadata="`+meta+`"`, challenge)
			status, body, challenge = do("-", "tools/call", "echo", `{"name":"echo","arguments":{"text":"x"}}`)
			require.Equal(t, 403, status, body)
			require.Equal(t, `Bearer error="insufficient_scope", scope="mcp", resource_metadata="`+meta+`"`, challenge)
			status, body, _ = do("mcp math", "tools/call", "add", `{"name":"add","arguments":{"a":1,"b":2}}`)
			require.Equal(t, 200, status, body)
			require.Contains(t, body, `"structuredContent":{"sum":3}`)
			status, body, _ = do("mcp", "tools/call", "whoami", `{"name":"whoami","arguments":{}}`)
			require.Equal(t, 200, status, body)
			require.Contains(t, body, `"text":"alice mcp"`)
			status, body, _ = do("-", "tools/call", "countdown", `{"name":"countdown","arguments":{"n":0}}`)
			require.Equal(t, 200, status, body)

			status, body, challenge = do("mcp", "resources/read", "test://doc", `{"uri":"test://doc"}`)
			require.Equal(t, 403, status, body)
			require.Equal(t, `Bearer error="insufficient_scope", scope="mcp docs", resource_metadata="`+meta+`"`, challenge)
			status, body, _ = do("docs", "resources/read", "test://doc", `{"uri":"test://doc"}`)
			require.Equal(t, 200, status, body)
			status, body, _ = do("mcp", "prompts/get", "greet", `{"name":"greet"}`)
			require.Equal(t, 403, status, body)
			status, body, _ = do("docs", "prompts/get", "greet", `{"name":"greet"}`)
			require.Equal(t, 200, status, body)
		})
	}
}

func sep(params string) string {
	if params == "{}" {
		return ""
	}
	return ","
}

// TestStdioAccess: over a stream transport (no HTTP to answer 403) a
// refused call is the JSON-RPC error -32007 and the lists are filtered by
// the connection's identity (none here).
func TestStdioAccess(t *testing.T) {
	rules, err := oauth.ParseScopeRules([]string{"echo=mcp"})
	require.NoError(t, err)
	s := mcp.New(mcp.Implementation{Name: "test", Version: "1"}, &mcp.Options{Access: rules})
	defer s.Close()
	require.NoError(t, mcpdemo.Register(s))
	out := s.Engine().Process(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`))
	require.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32007,"message":"Forbidden","data":{"name":"echo","scope":"mcp"}}}`, string(out))
	out = s.Engine().Process(nil, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	require.NotContains(t, string(out), `"echo"`)
	require.Contains(t, string(out), `"add"`)
}

// TestHTTPSessionOwner: a session opened by an identity is that
// identity's: another one naming its id gets 404 on POST, GET and DELETE,
// as if it did not exist.
func TestHTTPSessionOwner(t *testing.T) {
	e := accessEndpoint(t)
	res, body := e.do("POST", hdr{"X-Scopes": "mcp", "X-User": "alice"}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	require.Equal(t, 200, res.StatusCode, body)
	sid := res.Header.Get("Mcp-Session-Id")
	as := func(user string) hdr {
		return hdr{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25", "X-Scopes": "mcp", "X-User": user}
	}
	res, body = e.do("POST", as("bob"), ping)
	require.Equal(t, 404, res.StatusCode, body)
	h := as("bob")
	h["Accept"] = "text/event-stream"
	res, body = e.do("GET", h, "")
	require.Equal(t, 404, res.StatusCode, body)
	res, body = e.do("DELETE", as("bob"), "")
	require.Equal(t, 404, res.StatusCode, body)
	res, body = e.do("POST", as("alice"), ping)
	require.Equal(t, 200, res.StatusCode, body)
	res, _ = e.do("DELETE", as("alice"), "")
	require.Equal(t, 200, res.StatusCode)
}
