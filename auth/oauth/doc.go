// Package oauth makes a jetrpc endpoint an OAuth 2.1 resource server the
// way the MCP specification's "Authorization" section (revision 2025-11-25)
// defines one: clients get their tokens from an authorization server of
// their own, and the endpoint only checks them.
//
// Three pieces, one for each job the endpoint has:
//
//   - [Resource] describes the protected resource (RFC 9728). Its
//     [Resource.Document] is the JSON the endpoint serves, without
//     authentication, at each of [Resource.Paths]
//     ("/.well-known/oauth-protected-resource/mcp" for a resource at /mcp,
//     and the root form for clients that only try that). Its
//     [Resource.AppendUnauthorized] and [Resource.AppendForbidden] build the
//     WWW-Authenticate value of a 401 (no token, or a token refused:
//     error="invalid_token") and of a 403 (error="insufficient_scope", the
//     scope to step up to), both pointing at the metadata (RFC 6750 §3).
//     It depends on no HTTP server: fasthttp and net/http callers serve the
//     same bytes.
//   - [Validator] is an [auth.Authenticator]: a transport hands it the
//     bearer token, it returns an [*auth.Identity] whose Attrs is the
//     [*Token] (subject, client id, scopes, expiry; [TokenOf]). JWT access
//     tokens (RFC 9068) are verified with the JWKS of their issuer, found
//     through its metadata (RFC 8414, else OpenID discovery): RS256, ES256
//     and EdDSA only, the issuer one of those configured, the audience this
//     resource's canonical URI (RFC 8707), exp/nbf/iat with a leeway.
//     Opaque tokens go to the introspection endpoint (RFC 7662). A token is
//     checked once in its lifetime: the identity is cached until the token
//     expires, and a cached token costs a hash and a map lookup, with no
//     allocation. Refusals are [*auth.Error]s whose reason
//     says why ([ErrExpired], [ErrAudience], ...), which the 401 carries as
//     its error_description.
//   - [ScopeRules] say which scopes each tool, resource or prompt needs
//     (from "NAME=SCOPE" strings): [ScopeRules.Allowed] filters the lists a
//     caller sees and guards a call, [ScopeRules.Needed] gives the scope of
//     the 403 step-up challenge.
//
// So an endpoint serves Document at Paths; authenticates every request
// with the Validator (through its auth.Authenticator hook), answering 401
// with AppendUnauthorized when that fails; and before a tool call, a
// resource read or a prompt get, answers 403 with AppendForbidden when
// Allowed says no.
//
// Only the standard library is used: crypto/rsa, crypto/ecdsa,
// crypto/ed25519 and crypto/sha256 for the signatures, net/http for the
// metadata, keys and introspection.
package oauth
