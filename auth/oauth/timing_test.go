package oauth_test

import (
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/oauth"
)

// BenchmarkValidate measures a token's validation: cold (the signature
// checked, the claims read; the keys already fetched) for each algorithm
// and for an introspected token, and warm (the cached identity, every
// request after the first).
func BenchmarkValidate(b *testing.B) {
	for _, alg := range []string{"RS256", "ES256", "EdDSA"} {
		k := newKey(b, "k", alg)
		as := newAS(b, k)
		v, _ := as.validator(b, nil)
		token := []byte(k.sign(b, nil, as.claims(nil)))
		if _, err := v.Validate(token); err != nil {
			b.Fatal(err)
		}
		b.Run("cold/"+alg, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.ValidateUncached(token); err != nil {
					b.Fatal(err)
				}
			}
		})
		if alg == "RS256" {
			r := &auth.Request{Transport: "http", Token: token}
			b.Run("warm/"+alg, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(token)))
				for b.Loop() {
					if _, err := v.Authenticate(r); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
	as := newAS(b)
	as.opaque["opaque"] = map[string]any{"active": true, "sub": "bob"}
	v, _ := as.validator(b, &oauth.Options{Introspection: &oauth.Introspection{
		URL: as.issuer + "/introspect", ClientID: introClient, ClientSecret: introSecret}})
	b.Run("cold/introspect", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := v.ValidateUncached([]byte("opaque")); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFirstValidation measures the first token a new Validator sees:
// discovery (RFC 8414 metadata), the JWKS, and the signature, from the
// loopback authorization server.
func BenchmarkFirstValidation(b *testing.B) {
	for _, alg := range []string{"RS256", "EdDSA"} {
		k := newKey(b, "k", alg)
		as := newAS(b, k)
		token := []byte(k.sign(b, nil, as.claims(nil)))
		b.Run(alg, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := oauth.New(resourceURI, []string{as.issuer},
					&oauth.Options{Client: as.srv.Client(), Now: func() time.Time { return epoch }})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := v.Validate(token); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
