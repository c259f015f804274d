package oauth_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/oauth"
)

// An MCP endpoint at https://mcp.example.com/mcp accepts the tokens of one
// authorization server (here a stand-in on loopback that publishes its
// metadata and one Ed25519 key). The endpoint serves the resource's
// metadata, authenticates requests with the Validator, answers 401 with
// Unauthorized when that fails, and 403 with Forbidden when the token
// lacks the scope a tool needs.
func Example() {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	b64 := base64.RawURLEncoding
	var as *httptest.Server
	as = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			json.NewEncoder(w).Encode(map[string]string{"issuer": as.URL, "jwks_uri": as.URL + "/jwks"})
		case "/jwks":
			fmt.Fprintf(w, `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","x":%q}]}`, b64.EncodeToString(priv.Public().(ed25519.PublicKey)))
		default:
			http.NotFound(w, r)
		}
	}))
	defer as.Close()
	sign := func(claims string) []byte {
		input := b64.EncodeToString([]byte(`{"alg":"EdDSA","kid":"k1","typ":"at+jwt"}`)) + "." + b64.EncodeToString([]byte(claims))
		return []byte(input + "." + b64.EncodeToString(ed25519.Sign(priv, []byte(input))))
	}

	res, err := oauth.NewResource(oauth.Metadata{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{as.URL},
		ScopesSupported:      []string{"mcp", "files:write"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Paths()[0])

	v, err := oauth.New(res.URI(), []string{as.URL}, &oauth.Options{Client: as.Client()})
	if err != nil {
		panic(err)
	}
	rules, err := oauth.ParseScopeRules([]string{"write_file=files:write"})
	if err != nil {
		panic(err)
	}

	// No token: 401 pointing at the metadata.
	_, err = v.Authenticate(&auth.Request{Transport: "http"})
	fmt.Println(res.Unauthorized("mcp", err))

	// A token for this resource, with scope mcp only.
	exp := time.Now().Add(time.Hour).Unix()
	token := sign(fmt.Sprintf(`{"iss":%q,"sub":"alice","aud":"https://mcp.example.com/mcp","client_id":"inspector","scope":"mcp","exp":%d}`, as.URL, exp))
	id, err := v.Authenticate(&auth.Request{Transport: "http", Token: token})
	fmt.Println(id.Name, oauth.TokenOf(id).ClientID, strings.Join(oauth.TokenOf(id).Scopes, " "), err)
	if !rules.Allowed(id, "write_file") {
		fmt.Println(res.Forbidden(rules.Needed("write_file"), ""))
	}

	// A token for another resource: 401 invalid_token.
	other := sign(fmt.Sprintf(`{"iss":%q,"sub":"alice","aud":"https://other.example.com","exp":%d}`, as.URL, exp))
	_, err = v.Authenticate(&auth.Request{Transport: "http", Token: other})
	fmt.Println(res.Unauthorized("mcp", err))
	// Output:
	// /.well-known/oauth-protected-resource/mcp
	// Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp"
	// alice inspector mcp <nil>
	// Bearer error="insufficient_scope", scope="files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// Bearer error="invalid_token", error_description="wrong audience", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp"
}
