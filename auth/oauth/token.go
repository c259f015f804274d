package oauth

import (
	"time"

	"github.com/jetrpc/jetrpc/auth"
)

// Scheme is the Scheme of the identities a Validator returns.
const Scheme = "oauth"

// Token is what a validated access token says; it is the Attrs of the
// identity a Validator returns ([TokenOf]). It is shared by every request
// that presents the same token and must not be changed.
type Token struct {
	// Issuer is the authorization server that issued the token (iss).
	Issuer string
	// Subject is the resource owner, or the client for a token of the
	// client credentials grant (sub); it is also the identity's Name.
	Subject string
	// ClientID is the client the token was issued to (client_id, else
	// azp).
	ClientID string
	// Scopes are the token's scopes (scope, space-separated, else scp).
	Scopes []string
	// Audience is whom the token is for (aud); it includes this resource.
	Audience []string
	// Expiry is when the token expires (exp); zero when an introspected
	// token has none.
	Expiry time.Time
	// IssuedAt is when the token was issued (iat), zero when unknown.
	IssuedAt time.Time
	// ID is the token's identifier (jti), "" when it has none.
	ID string
	// Introspected is true when the authorization server's introspection
	// endpoint vouched for the token (an opaque token), false for a JWT
	// whose signature was checked here.
	Introspected bool
}

// HasScope reports whether the token carries scope. It allocates nothing.
func (t *Token) HasScope(scope string) bool {
	if t == nil {
		return false
	}
	for _, s := range t.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// TokenOf returns the token behind id, an identity a Validator returned,
// or nil for any other identity (nil, a static token's, a certificate's).
func TokenOf(id *auth.Identity) *Token {
	if id == nil {
		return nil
	}
	t, _ := id.Attrs.(*Token)
	return t
}

// The reasons a token is refused. Each is an *auth.Error (so the client
// is told the reason, and a 401 carries it as error_description); compare
// with errors.Is.
var (
	// ErrMalformed: not a JWT this package reads, and no introspection
	// endpoint to ask.
	ErrMalformed error = &auth.Error{Reason: "malformed token"}
	// ErrType: the JWT's typ is neither at+jwt nor JWT, or it names
	// critical extensions.
	ErrType error = &auth.Error{Reason: "not an access token"}
	// ErrAlg: the JWT is signed with an algorithm other than RS256, ES256
	// and EdDSA (none and HS256 included).
	ErrAlg error = &auth.Error{Reason: "unsupported signing algorithm"}
	// ErrIssuer: the token's issuer is not one of the Validator's.
	ErrIssuer error = &auth.Error{Reason: "wrong issuer"}
	// ErrUnknownKey: the issuer's JWKS, even refreshed, has no key of the
	// JWT's kid and algorithm.
	ErrUnknownKey error = &auth.Error{Reason: "unknown signing key"}
	// ErrSignature: the signature does not verify.
	ErrSignature error = &auth.Error{Reason: "bad signature"}
	// ErrExpired: exp has passed (beyond the leeway).
	ErrExpired error = &auth.Error{Reason: "token expired"}
	// ErrNotYet: nbf or iat lies in the future (beyond the leeway).
	ErrNotYet error = &auth.Error{Reason: "token not yet valid"}
	// ErrNoExpiry: a JWT without exp (RFC 9068 requires it).
	ErrNoExpiry error = &auth.Error{Reason: "token without expiry"}
	// ErrAudience: the token is not for this resource (its aud lacks the
	// resource's canonical URI).
	ErrAudience error = &auth.Error{Reason: "wrong audience"}
	// ErrInactive: the introspection endpoint says the token is not
	// active (revoked, expired, unknown).
	ErrInactive error = &auth.Error{Reason: "token not active"}
	// ErrUnavailable: the authorization server's metadata, keys or
	// introspection endpoint could not be reached or read. The token may
	// be good; an endpoint may answer 503 rather than 401.
	ErrUnavailable error = &auth.Error{Reason: "authorization server unavailable"}
)
