// Package jwtauth authenticates clients with HS256 JSON Web Tokens the way
// go-ethereum's engine API does (execution-apis, authentication.md): client
// and server share a 32-byte secret, the client sends "Authorization:
// Bearer <JWT>" signed with it, and the token's iat (issued at) must lie
// within 60 seconds of the server's clock, either way. go-ethereum's
// rpc.WithHTTPAuth(node.NewJWTAuth(secret)) makes such tokens, a fresh one
// for each HTTP request and WebSocket dial.
//
// It is a package of its own so that only programs that use it link
// github.com/golang-jwt/jwt/v5.
package jwtauth

import (
	"bytes"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/internal/jwtmint"
)

// SecretLen is the length of a secret in bytes.
const SecretLen = jwtmint.SecretLen

// Window is how far a token's iat may lie from the server's clock.
const Window = 60 * time.Second

// LoadSecret reads a secret file as go-ethereum's --authrpc.jwtsecret
// does: 32 bytes, hex-encoded, with or without 0x, surrounding whitespace
// ignored. The client reads it the same way (one parser, in
// internal/jwtmint).
func LoadSecret(path string) ([]byte, error) { return jwtmint.LoadSecret(path) }

// ParseSecret decodes a hex-encoded 32-byte secret (0x optional,
// surrounding whitespace ignored).
func ParseSecret(text string) ([]byte, error) { return jwtmint.ParseSecret(text) }

// Options configures an Authenticator; nil means the defaults.
type Options struct {
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time
}

// Authenticator checks HS256 tokens signed with one secret.
type Authenticator struct {
	secret []byte
	now    func() time.Time
	parser *jwt.Parser
}

var _ auth.Authenticator = (*Authenticator)(nil)

// New returns an Authenticator for secret, which must be SecretLen bytes.
func New(secret []byte, opts *Options) (*Authenticator, error) {
	if len(secret) != SecretLen {
		return nil, fmt.Errorf("jwtauth: the secret is %d bytes; it must be %d", len(secret), SecretLen)
	}
	a := &Authenticator{secret: bytes.Clone(secret), now: time.Now}
	if opts != nil && opts.Now != nil {
		a.now = opts.Now
	}
	// HS256 only (no "none", no key confusion); the time claims are
	// checked below, with the window in both directions.
	a.parser = jwt.NewParser(jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithoutClaimsValidation())
	return a, nil
}

// The reasons a token is refused, as go-ethereum words them.
var (
	errInvalid  = &auth.Error{Reason: "invalid token"}
	errStale    = &auth.Error{Reason: "stale token"}
	errFuture   = &auth.Error{Reason: "future token"}
	errExpired  = &auth.Error{Reason: "token is expired"}
	errNoIssued = &auth.Error{Reason: "missing issued-at"}
)

// Authenticate checks r.Token: a JWT signed with HS256 and the secret,
// whose iat lies within Window of now and whose exp, if any, has not
// passed. The identity is named after the token's sub claim ("jwt"
// without one), with Scheme "jwt", Attrs the *jwt.RegisteredClaims, and
// Until the end of the iat window (or exp when sooner).
func (a *Authenticator) Authenticate(r *auth.Request) (*auth.Identity, error) {
	if len(r.Token) == 0 {
		return nil, auth.ErrNoCredentials
	}
	claims := new(jwt.RegisteredClaims)
	tok, err := a.parser.ParseWithClaims(string(r.Token), claims, a.key)
	if err != nil || !tok.Valid {
		return nil, errInvalid
	}
	now := a.now()
	if claims.IssuedAt == nil {
		return nil, errNoIssued
	}
	iat := claims.IssuedAt.Time
	switch {
	case now.Sub(iat) > Window:
		return nil, errStale
	case iat.Sub(now) > Window:
		return nil, errFuture
	case claims.ExpiresAt != nil && !now.Before(claims.ExpiresAt.Time):
		return nil, errExpired
	}
	until := iat.Add(Window)
	if claims.ExpiresAt != nil && claims.ExpiresAt.Time.Before(until) {
		until = claims.ExpiresAt.Time
	}
	name := claims.Subject
	if name == "" {
		name = "jwt"
	}
	return &auth.Identity{Name: name, Scheme: "jwt", Until: until, Attrs: claims}, nil
}

func (a *Authenticator) key(*jwt.Token) (any, error) { return a.secret, nil }
