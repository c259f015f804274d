package oauth_test

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/oauth"
)

// check validates token and compares the outcome with want (nil: valid).
func check(t *testing.T, v *oauth.Validator, token string, want error) *auth.Identity {
	t.Helper()
	id, err := v.Authenticate(&auth.Request{Transport: "http", Token: []byte(token)})
	if !errors.Is(err, want) || (err == nil) != (id != nil) {
		t.Fatalf("Authenticate = %v, %v; want %v", id, err, want)
	}
	return id
}

func TestValidJWTEachAlg(t *testing.T) {
	for _, alg := range []string{"RS256", "ES256", "EdDSA"} {
		t.Run(alg, func(t *testing.T) {
			k := newKey(t, "k-"+alg, alg)
			as := newAS(t, newKey(t, "other", "EdDSA"), k)
			v, _ := as.validator(t, nil)
			id := check(t, v, k.sign(t, nil, as.claims(nil)), nil)
			tok := oauth.TokenOf(id)
			if id.Name != "alice" || id.Scheme != "oauth" || tok == nil || tok.ClientID != "inspector" ||
				strings.Join(tok.Scopes, ",") != "tools:read,files:read" || tok.Issuer != as.issuer ||
				!tok.Expiry.Equal(epoch.Add(time.Hour)) || !id.Until.Equal(epoch.Add(time.Hour+time.Minute)) ||
				tok.Introspected || tok.ID != "t1" || !tok.HasScope("files:read") || tok.HasScope("files") {
				t.Fatalf("identity %+v, token %+v", id, tok)
			}
			// typ JWT, application/at+jwt and none at all are accepted too.
			for _, typ := range []any{"JWT", "application/at+jwt", nil} {
				check(t, v, k.sign(t, map[string]any{"typ": typ}, as.claims(map[string]any{"jti": typ})), nil)
			}
			if n := as.jwksHits.Load(); n != 1 {
				t.Fatalf("%d JWKS fetches, want 1", n)
			}
		})
	}
}

func TestRefused(t *testing.T) {
	k := newKey(t, "k1", "EdDSA")
	rs := newKey(t, "r1", "RS256")
	as := newAS(t, k, rs)
	v, _ := as.validator(t, nil)
	f := func(token string, want error) {
		t.Helper()
		check(t, v, token, want)
	}
	claims := as.claims
	f("", auth.ErrNoCredentials)
	f(k.sign(t, nil, claims(map[string]any{"exp": epoch.Add(-2 * time.Minute).Unix()})), oauth.ErrExpired)
	f(k.sign(t, nil, claims(map[string]any{"exp": epoch.Add(-30 * time.Second).Unix()})), nil) // within the leeway
	f(k.sign(t, nil, claims(map[string]any{"exp": nil})), oauth.ErrNoExpiry)
	f(k.sign(t, nil, claims(map[string]any{"nbf": epoch.Add(5 * time.Minute).Unix()})), oauth.ErrNotYet)
	f(k.sign(t, nil, claims(map[string]any{"nbf": epoch.Add(30 * time.Second).Unix(), "jti": "nbf"})), nil)
	f(k.sign(t, nil, claims(map[string]any{"iat": epoch.Add(5 * time.Minute).Unix()})), oauth.ErrNotYet)
	f(k.sign(t, nil, claims(map[string]any{"aud": "https://other.example.com/mcp"})), oauth.ErrAudience)
	f(k.sign(t, nil, claims(map[string]any{"aud": []string{"https://other.example.com", "https://mcp.example.com"}})), oauth.ErrAudience)
	f(k.sign(t, nil, claims(map[string]any{"aud": []string{"https://other.example.com", resourceURI}})), nil)
	f(k.sign(t, nil, claims(map[string]any{"aud": nil})), oauth.ErrAudience)
	f(k.sign(t, nil, claims(map[string]any{"iss": "https://evil.example.com"})), oauth.ErrIssuer)
	f(k.sign(t, nil, claims(map[string]any{"iss": nil})), oauth.ErrIssuer)
	f(k.sign(t, nil, claims(map[string]any{"exp": "tomorrow"})), oauth.ErrMalformed)
	f(k.sign(t, map[string]any{"typ": "dpop+jwt"}, claims(nil)), oauth.ErrType)
	f(k.sign(t, map[string]any{"crit": []string{"exp"}}, claims(nil)), oauth.ErrType)
	f(k.sign(t, map[string]any{"alg": "RS256"}, claims(nil)), oauth.ErrUnknownKey) // k1 is no RSA key
	f(rs.sign(t, map[string]any{"kid": nil}, claims(nil)), nil)                    // no kid: the RSA keys are tried

	// A bad signature: another key under k1's kid, and a tampered payload.
	impostor := newKey(t, "k1", "EdDSA")
	f(impostor.sign(t, nil, claims(nil)), oauth.ErrSignature)
	good := k.sign(t, nil, claims(map[string]any{"jti": "tamper"}))
	parts := strings.Split(good, ".")
	f(parts[0]+"."+part(t, claims(map[string]any{"jti": "tamper", "sub": "root"}))+"."+parts[2], oauth.ErrSignature)
	f(parts[0]+"."+parts[1]+".!!!", oauth.ErrSignature)

	// alg none, and HS256 "signed" with the RSA public key (both the PEM
	// and the DER form): never verified with any key.
	none := map[string]any{"alg": "none", "typ": "at+jwt"}
	f(part(t, none)+"."+part(t, claims(nil))+".", oauth.ErrAlg)
	der, err := x509.MarshalPKIXPublicKey(rs.priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	hs := map[string]any{"alg": "HS256", "kid": "r1", "typ": "at+jwt"}
	f(signHS256(t, pemKey, hs, claims(nil)), oauth.ErrAlg)
	f(signHS256(t, der, hs, claims(nil)), oauth.ErrAlg)
	f(signHS256(t, der, map[string]any{"alg": "RS384", "kid": "r1"}, claims(nil)), oauth.ErrAlg)

	// Not a JWT, and no introspection endpoint.
	f("opaque-token-0123456789", oauth.ErrMalformed)
	f("ey.a.b", oauth.ErrMalformed)
	if n := as.jwksHits.Load(); n != 1 {
		t.Fatalf("%d JWKS fetches, want 1", n)
	}
	if r := auth.Reason(func() error { _, err := v.Validate([]byte(impostor.sign(t, nil, claims(nil)))); return err }()); r != "bad signature" {
		t.Fatalf("reason %q", r)
	}
}

func TestUnknownKidRefreshOnce(t *testing.T) {
	k := newKey(t, "k1", "ES256")
	as := newAS(t, k)
	v, clk := as.validator(t, nil)
	check(t, v, k.sign(t, nil, as.claims(nil)), nil)
	if m, j := as.metaHits.Load(), as.jwksHits.Load(); m != 1 || j != 1 {
		t.Fatalf("cold: %d metadata, %d JWKS fetches; want 1, 1", m, j)
	}
	// Right after the fetch, an unknown kid does not fetch again.
	ghost := newKey(t, "ghost", "ES256")
	check(t, v, ghost.sign(t, nil, as.claims(nil)), oauth.ErrUnknownKey)
	if j := as.jwksHits.Load(); j != 1 {
		t.Fatalf("%d JWKS fetches within the rate limit, want 1", j)
	}
	// Later, exactly one refresh, then refused.
	clk.advance(31 * time.Second)
	check(t, v, ghost.sign(t, nil, as.claims(map[string]any{"jti": "2"})), oauth.ErrUnknownKey)
	if j := as.jwksHits.Load(); j != 2 {
		t.Fatalf("%d JWKS fetches, want 2", j)
	}
	// A second unknown kid within the rate limit: no fetch.
	clk.advance(time.Second)
	ghost2 := newKey(t, "ghost2", "ES256")
	check(t, v, ghost2.sign(t, nil, as.claims(nil)), oauth.ErrUnknownKey)
	if m, j := as.metaHits.Load(), as.jwksHits.Load(); m != 1 || j != 2 {
		t.Fatalf("%d metadata, %d JWKS fetches; want 1, 2", m, j)
	}
}

func TestKeyRotation(t *testing.T) {
	old := newKey(t, "2026-01", "EdDSA")
	as := newAS(t, old)
	v, clk := as.validator(t, &oauth.Options{KeysMaxAge: 10 * time.Minute})
	t1 := old.sign(t, nil, as.claims(map[string]any{"jti": "t1"}))
	check(t, v, t1, nil)

	// The server publishes a new key beside the old one and signs with it.
	clk.advance(time.Minute)
	fresh := newKey(t, "2026-02", "EdDSA")
	as.publish(old, fresh)
	check(t, v, fresh.sign(t, nil, as.claims(map[string]any{"jti": "t2"})), nil)
	check(t, v, old.sign(t, nil, as.claims(map[string]any{"jti": "t3"})), nil) // old key still published
	if j := as.jwksHits.Load(); j != 2 {
		t.Fatalf("%d JWKS fetches, want 2", j)
	}

	// It withdraws the old key: once the keys are older than KeysMaxAge,
	// a new token signed with it is refused; tokens already validated
	// stay valid until they expire.
	as.publish(fresh)
	clk.advance(11 * time.Minute)
	check(t, v, old.sign(t, nil, as.claims(map[string]any{"jti": "t4"})), oauth.ErrUnknownKey)
	check(t, v, fresh.sign(t, nil, as.claims(map[string]any{"jti": "t5"})), nil)
	check(t, v, t1, nil)
	if j := as.jwksHits.Load(); j != 3 {
		t.Fatalf("%d JWKS fetches, want 3", j)
	}
	clk.advance(time.Hour)
	check(t, v, t1, oauth.ErrExpired)
}

func TestOpenIDDiscoveryFallback(t *testing.T) {
	k := newKey(t, "k1", "EdDSA")
	as := newAS(t, k)
	as.oidcOnly = true
	v, _ := as.validator(t, nil)
	if err := v.Discover(t.Context()); err != nil {
		t.Fatal(err)
	}
	check(t, v, k.sign(t, nil, as.claims(nil)), nil)
	if m, j := as.metaHits.Load(), as.jwksHits.Load(); m != 1 || j != 1 {
		t.Fatalf("%d metadata, %d JWKS fetches; want 1, 1", m, j)
	}
}

func TestIssuerUnavailable(t *testing.T) {
	k := newKey(t, "k1", "EdDSA")
	as := newAS(t, k)
	v, err := oauth.New(resourceURI, []string{as.issuer + "/nowhere"}, &oauth.Options{Client: as.srv.Client(), Now: (&clock{t: epoch}).now})
	if err != nil {
		t.Fatal(err)
	}
	token := k.sign(t, nil, as.claims(map[string]any{"iss": as.issuer + "/nowhere"}))
	_, err = v.Validate([]byte(token))
	if !errors.Is(err, oauth.ErrUnavailable) || auth.Reason(err) != "authorization server unavailable" {
		t.Fatalf("err %v", err)
	}
	if err := v.Discover(t.Context()); !errors.Is(err, oauth.ErrUnavailable) {
		t.Fatalf("Discover: %v", err)
	}
}

func TestMetadataURLs(t *testing.T) {
	f := func(issuer, want string) {
		t.Helper()
		got, err := oauth.MetadataURLs(issuer)
		if err != nil || strings.Join(got, " ") != want {
			t.Fatalf("MetadataURLs(%q) = %q, %v\nwant %q", issuer, got, err, want)
		}
	}
	f("https://as.example.com", "https://as.example.com/.well-known/oauth-authorization-server https://as.example.com/.well-known/openid-configuration")
	f("https://as.example.com/", "https://as.example.com/.well-known/oauth-authorization-server https://as.example.com/.well-known/openid-configuration")
	f("https://as.example.com/tenant1", "https://as.example.com/.well-known/oauth-authorization-server/tenant1 https://as.example.com/.well-known/openid-configuration/tenant1 https://as.example.com/tenant1/.well-known/openid-configuration")
}

func TestNewRefuses(t *testing.T) {
	f := func(resource string, issuers []string, opts *oauth.Options) {
		t.Helper()
		if _, err := oauth.New(resource, issuers, opts); err == nil {
			t.Fatalf("New(%q, %q) did not fail", resource, issuers)
		}
	}
	f("mcp.example.com", []string{"https://as.example.com"}, nil)
	f(resourceURI+"#x", []string{"https://as.example.com"}, nil)
	f(resourceURI, []string{"http://as.example.com"}, nil) // keys over plain http
	f(resourceURI, nil, nil)
	f(resourceURI, nil, &oauth.Options{Introspection: &oauth.Introspection{URL: "http://as.example.com/i"}})
}

// Many requests at once, some with unknown kids: race-clean, and the
// refreshes stay within the rate limit.
func TestConcurrent(t *testing.T) {
	k := newKey(t, "k1", "ES256")
	as := newAS(t, k)
	v, clk := as.validator(t, nil)
	good := k.sign(t, nil, as.claims(nil))
	var ghosts []string
	for i := range 8 {
		g := newKey(t, "ghost"+string(rune('a'+i)), "ES256")
		ghosts = append(ghosts, g.sign(t, nil, as.claims(nil)))
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				if j == 25 && i == 0 {
					clk.advance(31 * time.Second)
				}
				if _, err := v.Validate([]byte(good)); err != nil {
					t.Error(err)
					return
				}
				if _, err := v.Validate([]byte(ghosts[(i+j)%len(ghosts)])); !errors.Is(err, oauth.ErrUnknownKey) {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if j := as.jwksHits.Load(); j < 1 || j > 2 {
		t.Fatalf("%d JWKS fetches, want 1 or 2", j)
	}
}

func TestCacheBounded(t *testing.T) {
	k := newKey(t, "k1", "EdDSA")
	as := newAS(t, k)
	v, _ := as.validator(t, &oauth.Options{CacheSize: 16})
	for i := range 100 {
		check(t, v, k.sign(t, nil, as.claims(map[string]any{"jti": strconv.Itoa(i)})), nil)
		if n := v.CacheLen(); n > 16 {
			t.Fatalf("%d cached tokens, bound 16", n)
		}
	}
}
