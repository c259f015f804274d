//go:build !race

package oauth_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/oauth"
)

// A token validated once costs no allocation afterwards, whichever way it
// was validated; nor does a scope check.
func TestCachedAllocs(t *testing.T) {
	k := newKey(t, "k1", "RS256")
	as := newAS(t, k)
	as.opaque["opaque-good"] = map[string]any{"active": true, "sub": "bob", "scope": "files:read"}
	v, _ := as.validator(t, &oauth.Options{Introspection: &oauth.Introspection{
		URL: as.issuer + "/introspect", ClientID: introClient, ClientSecret: introSecret}})
	rules, err := oauth.ParseScopeRules([]string{"read_file=files:read", "admin_*=admin"})
	if err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{k.sign(t, nil, as.claims(nil)), "opaque-good"} {
		r := &auth.Request{Transport: "http", Token: []byte(token)}
		first := check(t, v, token, nil)
		var id *auth.Identity
		if n := testing.AllocsPerRun(1000, func() { id, _ = v.Authenticate(r) }); n != 0 || id != first {
			t.Errorf("cached Authenticate: %v allocations, same identity %v", n, id == first)
		}
		if n := testing.AllocsPerRun(1000, func() {
			_ = rules.Allowed(id, "read_file") && rules.Allowed(id, "admin_x") && rules.Needed("admin_x") != ""
		}); n != 0 {
			t.Errorf("Allowed/Needed: %v allocations", n)
		}
	}
}
