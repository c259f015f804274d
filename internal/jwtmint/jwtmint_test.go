package jwtmint

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// TestMint: a token is header.claims.signature, HS256 over the first two
// parts, with iat the second it was made; within a second it is the same.
func TestMint(t *testing.T) {
	secret, err := ParseSecret("0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n")
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(secret)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1700000000, 5)
	tok := string(m.Append(nil, now))
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token %s", tok)
	}
	claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
	hdr, _ := base64.RawURLEncoding.DecodeString(parts[0])
	if string(claims) != `{"iat":1700000000}` || string(hdr) != `{"alg":"HS256","typ":"JWT"}` {
		t.Errorf("header %s claims %s", hdr, claims)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(parts[0] + "." + parts[1]))
	if want := base64.RawURLEncoding.EncodeToString(mac.Sum(nil)); parts[2] != want {
		t.Errorf("signature %s, want %s", parts[2], want)
	}
	if again := string(m.Append(nil, now.Add(time.Millisecond))); again != tok {
		t.Error("a second token within the same second differs")
	}
	if later := string(m.Append(nil, now.Add(time.Second))); later == tok {
		t.Error("a token a second later is the same")
	}
	for _, bad := range []string{"zz", "0x0102"} {
		if _, err := ParseSecret(bad); err == nil {
			t.Errorf("ParseSecret(%q) succeeded", bad)
		}
	}
}
