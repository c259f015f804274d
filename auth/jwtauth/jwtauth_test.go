package jwtauth_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/jwtauth"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

func sign(t *testing.T, m jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(m, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAuthenticate(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	a, err := jwtauth.New(secret, &jwtauth.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) *jwt.NumericDate { return jwt.NewNumericDate(now.Add(d)) }
	hs := func(c jwt.MapClaims) string { return sign(t, jwt.SigningMethodHS256, secret, c) }
	f := func(token, wantName, wantReason string) {
		t.Helper()
		id, err := a.Authenticate(&auth.Request{Token: []byte(token)})
		if wantReason != "" {
			if err == nil || auth.Reason(err) != wantReason {
				t.Errorf("%s: %v, %v; want %q", token, id, err, wantReason)
			}
			return
		}
		if err != nil || id.Name != wantName || id.Scheme != "jwt" {
			t.Errorf("%s: %+v, %v; want %s", token, id, err, wantName)
		}
	}
	f(hs(jwt.MapClaims{"iat": at(0)}), "jwt", "")
	f(hs(jwt.MapClaims{"iat": at(-59 * time.Second)}), "jwt", "")
	f(hs(jwt.MapClaims{"iat": at(59 * time.Second)}), "jwt", "")
	f(hs(jwt.MapClaims{"iat": at(0), "sub": "cl-1"}), "cl-1", "")
	f(hs(jwt.MapClaims{"iat": at(-61 * time.Second)}), "", "stale token")
	f(hs(jwt.MapClaims{"iat": at(61 * time.Second)}), "", "future token")
	f(hs(jwt.MapClaims{}), "", "missing issued-at")
	f(hs(jwt.MapClaims{"iat": at(0), "exp": at(-time.Second)}), "", "token is expired")
	f(sign(t, jwt.SigningMethodHS256, []byte("another secret, 32 bytes long!!!"), jwt.MapClaims{"iat": at(0)}), "", "invalid token")
	f(sign(t, jwt.SigningMethodHS512, secret, jwt.MapClaims{"iat": at(0)}), "", "invalid token")
	f(sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, jwt.MapClaims{"iat": at(0)}), "", "invalid token")
	f("not.a.jwt", "", "invalid token")
	f("", "", "missing credentials")

	id, _ := a.Authenticate(&auth.Request{Token: []byte(hs(jwt.MapClaims{"iat": at(-10 * time.Second)}))})
	if want := now.Add(50 * time.Second); !id.Until.Equal(want) {
		t.Errorf("Until = %v, want %v", id.Until, want)
	}
	id, _ = a.Authenticate(&auth.Request{Token: []byte(hs(jwt.MapClaims{"iat": at(0), "exp": at(5 * time.Second)}))})
	if want := now.Add(5 * time.Second); !id.Until.Equal(want) {
		t.Errorf("Until with exp = %v, want %v", id.Until, want)
	}
}

func TestSecret(t *testing.T) {
	hex64 := strings.Repeat("ab", 32)
	f := func(text string, ok bool) {
		t.Helper()
		b, err := jwtauth.ParseSecret(text)
		if ok != (err == nil) || (ok && len(b) != 32) {
			t.Errorf("%q: %x, %v", text, b, err)
		}
	}
	f(hex64, true)
	f("0x"+hex64+"\n", true)
	f("  "+hex64+"  \r\n", true)
	f(hex64[:62], false)
	f(hex64+"ab", false)
	f("zz"+hex64[2:], false)
	f("", false)

	dir := t.TempDir()
	path := filepath.Join(dir, "jwt.hex")
	if err := os.WriteFile(path, []byte("0x"+hex64), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := jwtauth.LoadSecret(path); err != nil || len(b) != 32 || b[0] != 0xab {
		t.Errorf("LoadSecret: %x, %v", b, err)
	}
	if _, err := jwtauth.LoadSecret(filepath.Join(dir, "none")); err == nil {
		t.Error("LoadSecret of a missing file")
	}
	if _, err := jwtauth.New(secret[:31], nil); err == nil {
		t.Error("New with 31 bytes")
	}
}
