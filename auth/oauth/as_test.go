package oauth_test

// A test authorization server: RFC 8414 metadata (or only OpenID
// discovery), a JWKS whose keys the test changes, an introspection
// endpoint, and counters of what was fetched. Loopback only.

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/auth/oauth"
)

const resourceURI = "https://mcp.example.com/mcp"

var enc = base64.RawURLEncoding

// testKey is a signing key and its JWK.
type testKey struct {
	kid  string
	alg  string
	priv crypto.Signer
}

var (
	rsaOnce sync.Once
	rsaKey  *rsa.PrivateKey
)

// newKey makes a key for alg; RSA's is made once per test binary (slow).
func newKey(t testing.TB, kid, alg string) *testKey {
	t.Helper()
	k := &testKey{kid: kid, alg: alg}
	switch alg {
	case "RS256":
		rsaOnce.Do(func() {
			var err error
			if rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
				panic(err)
			}
		})
		k.priv = rsaKey
	case "ES256":
		p, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		k.priv = p
	case "EdDSA":
		_, p, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		k.priv = p
	default:
		t.Fatalf("no key for %s", alg)
	}
	return k
}

// jwk returns the key's public JWK.
func (k *testKey) jwk() map[string]string {
	m := map[string]string{"kid": k.kid, "use": "sig", "alg": k.alg}
	switch pub := k.priv.Public().(type) {
	case *rsa.PublicKey:
		m["kty"], m["n"], m["e"] = "RSA", enc.EncodeToString(pub.N.Bytes()), enc.EncodeToString(big.NewInt(int64(pub.E)).Bytes())
	case *ecdsa.PublicKey:
		b, _ := pub.Bytes()
		m["kty"], m["crv"], m["x"], m["y"] = "EC", "P-256", enc.EncodeToString(b[1:33]), enc.EncodeToString(b[33:])
	case ed25519.PublicKey:
		m["kty"], m["crv"], m["x"] = "OKP", "Ed25519", enc.EncodeToString(pub)
	}
	return m
}

// sign makes a JWS of claims with header (alg and kid added from k when
// not given).
func (k *testKey) sign(t testing.TB, header, claims map[string]any) string {
	t.Helper()
	h := map[string]any{"alg": k.alg, "kid": k.kid, "typ": "at+jwt"}
	for n, v := range header {
		if v == nil {
			delete(h, n)
		} else {
			h[n] = v
		}
	}
	input := part(t, h) + "." + part(t, claims)
	digest := sha256.Sum256([]byte(input))
	var sig []byte
	var err error
	switch p := k.priv.(type) {
	case *rsa.PrivateKey:
		sig, err = rsa.SignPKCS1v15(nil, p, crypto.SHA256, digest[:])
	case *ecdsa.PrivateKey:
		var r, s *big.Int
		r, s, err = ecdsa.Sign(rand.Reader, p, digest[:])
		sig = make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
	case ed25519.PrivateKey:
		sig = ed25519.Sign(p, []byte(input))
	}
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + enc.EncodeToString(sig)
}

// signHS256 makes an HS256 JWS with secret as the HMAC key.
func signHS256(t testing.TB, secret []byte, header, claims map[string]any) string {
	input := part(t, header) + "." + part(t, claims)
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(input))
	return input + "." + enc.EncodeToString(m.Sum(nil))
}

func part(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return enc.EncodeToString(b)
}

// testAS is the authorization server.
type testAS struct {
	srv    *httptest.Server
	issuer string

	mu       sync.Mutex
	keys     []*testKey
	opaque   map[string]map[string]any // introspection answers by token
	oidcOnly bool                      // no RFC 8414 metadata

	metaHits, jwksHits, introHits atomic.Int32
}

const (
	introClient = "mcp server"
	introSecret = "s3cret:&="
)

func newAS(t testing.TB, keys ...*testKey) *testAS {
	t.Helper()
	as := &testAS{keys: keys, opaque: map[string]map[string]any{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		as.mu.Lock()
		no := as.oidcOnly
		as.mu.Unlock()
		if no {
			http.NotFound(w, r)
			return
		}
		as.metadata(w)
	})
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) { as.metadata(w) })
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		as.jwksHits.Add(1)
		as.mu.Lock()
		var list []map[string]string
		for _, k := range as.keys {
			list = append(list, k.jwk())
		}
		as.mu.Unlock()
		// A symmetric key and an encryption key, which must be skipped.
		list = append(list, map[string]string{"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"},
			map[string]string{"kty": "OKP", "crv": "Ed25519", "kid": "enc", "use": "enc", "x": enc.EncodeToString(make([]byte, 32))})
		json.NewEncoder(w).Encode(map[string]any{"keys": list})
	})
	mux.HandleFunc("/introspect", func(w http.ResponseWriter, r *http.Request) {
		as.introHits.Add(1)
		id, secret, ok := r.BasicAuth()
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		if !ok || id != introClient || secret != introSecret || r.Method != http.MethodPost {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		as.mu.Lock()
		a := as.opaque[r.PostFormValue("token")]
		as.mu.Unlock()
		if a == nil || r.PostFormValue("token_type_hint") != "access_token" {
			a = map[string]any{"active": false}
		}
		json.NewEncoder(w).Encode(a)
	})
	as.srv = httptest.NewServer(mux)
	as.issuer = as.srv.URL
	t.Cleanup(as.srv.Close)
	return as
}

func (as *testAS) metadata(w http.ResponseWriter) {
	as.metaHits.Add(1)
	json.NewEncoder(w).Encode(map[string]any{
		"issuer":                 as.issuer,
		"jwks_uri":               as.issuer + "/jwks",
		"introspection_endpoint": as.issuer + "/introspect",
		"token_endpoint":         as.issuer + "/token",
		"authorization_endpoint": as.issuer + "/authorize",
	})
}

// publish replaces the published keys.
func (as *testAS) publish(keys ...*testKey) {
	as.mu.Lock()
	as.keys = keys
	as.mu.Unlock()
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var epoch = time.Unix(1_800_000_000, 0)

// validator returns a Validator for as's issuer on a clock at epoch.
func (as *testAS) validator(t testing.TB, opts *oauth.Options) (*oauth.Validator, *clock) {
	t.Helper()
	c := &clock{t: epoch}
	if opts == nil {
		opts = &oauth.Options{}
	}
	opts.Now = c.now
	opts.Client = as.srv.Client()
	v, err := oauth.New(resourceURI, []string{as.issuer}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return v, c
}

// claims returns valid claims for as at the clock's epoch, with changes
// (a nil value removes a claim).
func (as *testAS) claims(changes map[string]any) map[string]any {
	c := map[string]any{
		"iss":       as.issuer,
		"sub":       "alice",
		"aud":       resourceURI,
		"client_id": "inspector",
		"scope":     "tools:read files:read",
		"iat":       epoch.Unix(),
		"exp":       epoch.Add(time.Hour).Unix(),
		"jti":       "t1",
	}
	for n, v := range changes {
		if v == nil {
			delete(c, n)
		} else {
			c[n] = v
		}
	}
	return c
}
