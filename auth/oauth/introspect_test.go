package oauth_test

import (
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/auth/oauth"
)

func TestIntrospection(t *testing.T) {
	k := newKey(t, "k1", "EdDSA")
	as := newAS(t, k)
	as.opaque["opaque-good"] = map[string]any{"active": true, "sub": "bob", "client_id": "cli",
		"scope": "files:read", "aud": resourceURI, "iss": as.issuer, "exp": epoch.Add(time.Hour).Unix(), "token_type": "Bearer"}
	as.opaque["opaque-short"] = map[string]any{"active": true, "username": "carol", "exp": epoch.Add(20 * time.Second).Unix()}
	as.opaque["opaque-other"] = map[string]any{"active": true, "sub": "bob", "aud": []string{"https://other.example.com"}}
	as.opaque["opaque-expired"] = map[string]any{"active": true, "sub": "bob", "exp": epoch.Add(-time.Hour).Unix()}
	as.opaque["opaque-refresh"] = map[string]any{"active": true, "sub": "bob", "token_type": "refresh_token"}
	as.opaque["opaque-iss"] = map[string]any{"active": true, "sub": "bob", "iss": "https://evil.example.com"}
	v, clk := as.validator(t, &oauth.Options{Introspection: &oauth.Introspection{
		URL: as.issuer + "/introspect", ClientID: introClient, ClientSecret: introSecret}})

	id := check(t, v, "opaque-good", nil)
	tok := oauth.TokenOf(id)
	if id.Name != "bob" || !tok.Introspected || tok.ClientID != "cli" || !tok.HasScope("files:read") ||
		!id.Until.Equal(epoch.Add(oauth.DefaultIntrospectTTL)) {
		t.Fatalf("identity %+v, token %+v", id, tok)
	}
	// Cached: the same identity, no second request, until the TTL.
	if again := check(t, v, "opaque-good", nil); again != id || as.introHits.Load() != 1 {
		t.Fatalf("not cached: %d requests", as.introHits.Load())
	}
	if id := check(t, v, "opaque-short", nil); id.Name != "carol" || !id.Until.Equal(epoch.Add(oauth.DefaultIntrospectTTL)) {
		t.Fatalf("short-lived: %+v", id)
	}
	check(t, v, "opaque-unknown", oauth.ErrInactive)
	check(t, v, "opaque-other", oauth.ErrAudience)
	check(t, v, "opaque-expired", oauth.ErrExpired)
	check(t, v, "opaque-refresh", oauth.ErrType)
	check(t, v, "opaque-iss", oauth.ErrIssuer)
	n := as.introHits.Load()
	clk.advance(oauth.DefaultIntrospectTTL + time.Second)
	check(t, v, "opaque-good", nil)
	if as.introHits.Load() != n+1 {
		t.Fatal("not asked again after the TTL")
	}
	// Revoked: the next question after the TTL gets active:false.
	delete(as.opaque, "opaque-good")
	clk.advance(oauth.DefaultIntrospectTTL + time.Second)
	check(t, v, "opaque-good", oauth.ErrInactive)
	// JWTs are still verified locally.
	check(t, v, k.sign(t, nil, as.claims(nil)), nil)

	// Wrong credentials: the endpoint answers 401.
	bad, _ := as.validator(t, &oauth.Options{Introspection: &oauth.Introspection{
		URL: as.issuer + "/introspect", ClientID: introClient, ClientSecret: "guess"}})
	check(t, bad, "opaque-short", oauth.ErrUnavailable)
}
