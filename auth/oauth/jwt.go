package oauth

// NOTE: JWT access tokens (RFC 9068). The header is read first: its alg
// must be RS256, ES256 or EdDSA (so "none" and HS256, and with them the
// HS256-signed-with-the-public-key confusion, never reach a key), its typ
// at+jwt or JWT (or absent), and it may name no critical extension. The
// claims are then read, unverified: the issuer must be one of ours, the
// times and the audience right, before the issuer's keys verify the
// signature, so that a token refused anyway (an expired one, one for
// another resource) never makes the Validator fetch keys. Keys named by the token itself (jku, jwk,
// x5u) are ignored: only the issuer's JWKS counts.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"strings"
	"time"
)

// algorithm is a signing algorithm this package verifies.
type algorithm uint8

const (
	algUnsupported algorithm = iota
	algRS256
	algES256
	algEdDSA
)

func algorithmOf(name string) algorithm {
	switch name {
	case "RS256":
		return algRS256
	case "ES256":
		return algES256
	case "EdDSA", "Ed25519": // RFC 8037; RFC 9864's fully specified name
		return algEdDSA
	}
	return algUnsupported
}

// b64 decodes the parts of a JWS (RFC 7515 §2: base64url, no padding).
var b64 = base64.RawURLEncoding.Strict()

// looksLikeJWT reports whether token has the shape of a JWS compact
// serialization: three base64url parts, the first starting "{".
func looksLikeJWT(token []byte) bool {
	if bytes.Count(token, []byte{'.'}) != 2 {
		return false
	}
	// base64url of `{"` starts with "eyJ"; of `{ "`, `{\n` or `{\r` with "ey".
	return bytes.HasPrefix(token, []byte("ey"))
}

type jwtHeader struct {
	Alg  string          `json:"alg"`
	Kid  string          `json:"kid"`
	Typ  string          `json:"typ"`
	Crit json.RawMessage `json:"crit"`
}

type jwtClaims struct {
	Iss      string   `json:"iss"`
	Sub      string   `json:"sub"`
	Aud      strings1 `json:"aud"`
	Exp      *float64 `json:"exp"`
	Nbf      *float64 `json:"nbf"`
	Iat      *float64 `json:"iat"`
	Jti      string   `json:"jti"`
	Scope    string   `json:"scope"`
	Scp      strings1 `json:"scp"`
	ClientID string   `json:"client_id"`
	Azp      string   `json:"azp"`
}

// strings1 is a JSON string or array of strings (aud, scp).
type strings1 []string

func (s *strings1) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var one string
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*s = strings1{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(s))
}

// typOK reports whether typ names an access token (RFC 9068 §2.1: at+jwt,
// with or without "application/"), or a plain JWT, or is absent.
func typOK(typ string) bool {
	typ = strings.ToLower(typ)
	typ = strings.TrimPrefix(typ, "application/")
	return typ == "" || typ == "at+jwt" || typ == "jwt"
}

// numericDate turns a NumericDate claim into a time (zero when absent).
func numericDate(f *float64) (time.Time, bool) {
	if f == nil {
		return time.Time{}, true
	}
	if math.IsNaN(*f) || *f < 0 || *f > 1e11 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(*f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}

// verifyJWT checks a JWT access token and returns what it says and until
// when to accept it.
func (v *Validator) verifyJWT(token []byte, now time.Time) (*Token, time.Time, error) {
	var none time.Time
	i := bytes.IndexByte(token, '.')
	j := bytes.LastIndexByte(token, '.')
	rawHeader, rawClaims, rawSig := token[:i], token[i+1:j], token[j+1:]

	var h jwtHeader
	if err := decodePart(rawHeader, &h); err != nil {
		return nil, none, ErrMalformed
	}
	alg := algorithmOf(h.Alg)
	switch {
	case alg == algUnsupported:
		return nil, none, ErrAlg
	case h.Crit != nil || !typOK(h.Typ):
		return nil, none, ErrType
	}
	var c jwtClaims
	if err := decodePart(rawClaims, &c); err != nil {
		return nil, none, ErrMalformed
	}
	is := v.issuers[c.Iss]
	if is == nil {
		return nil, none, ErrIssuer
	}
	exp, ok1 := numericDate(c.Exp)
	nbf, ok2 := numericDate(c.Nbf)
	iat, ok3 := numericDate(c.Iat)
	switch {
	case !ok1 || !ok2 || !ok3:
		return nil, none, ErrMalformed
	case exp.IsZero():
		return nil, none, ErrNoExpiry
	}
	until, err := v.checkTimes(exp, nbf, iat, now)
	if err != nil {
		return nil, none, err
	}
	if !v.audienceOK(c.Aud) {
		return nil, none, ErrAudience
	}

	sig := make([]byte, b64.DecodedLen(len(rawSig)))
	n, err := b64.Decode(sig, rawSig)
	if err != nil {
		return nil, none, ErrSignature
	}
	if err := is.verify(h.Kid, alg, token[:j], sig[:n], now); err != nil {
		return nil, none, err
	}
	t := &Token{
		Issuer:   c.Iss,
		Subject:  c.Sub,
		ClientID: c.ClientID,
		Audience: c.Aud,
		Expiry:   exp,
		IssuedAt: iat,
		ID:       c.Jti,
	}
	if t.ClientID == "" {
		t.ClientID = c.Azp
	}
	if c.Scope != "" {
		t.Scopes = strings.Fields(c.Scope)
	} else {
		t.Scopes = c.Scp
	}
	return t, until, nil
}

// decodePart decodes one base64url part of a JWS into the JSON object v.
func decodePart(part []byte, v any) error {
	buf := make([]byte, b64.DecodedLen(len(part)))
	n, err := b64.Decode(buf, part)
	if err != nil {
		return err
	}
	return json.Unmarshal(buf[:n], v)
}
