// Package auth says who a client is and what it may call.
//
// A transport (package netserver) authenticates each connection, or each
// HTTP request, with an [Authenticator]: it hands over what it knows of the
// client in a [Request] (the transport, the remote address, the TLS state
// with the peer's certificates, over HTTP the request's headers and the
// bearer token of its Authorization header) and gets an [*Identity] back,
// or an error that refuses the client. The identity reaches the handlers
// through their context: [IdentityOf].
//
// Built in:
//
//   - [Tokens]: static bearer tokens from a file, each naming an identity;
//   - [ClientCert]: the identity of a verified TLS client certificate
//     (mTLS), from its subject;
//   - package jwtauth: HS256 JSON Web Tokens as go-ethereum's engine API
//     checks them (a shared 32-byte secret, iat within 60 s);
//   - [Any] tries several in turn.
//
// [Authorize] is the authorisation side: a dispatch.Middleware that lets a
// call through only when [Rules] allow its method for the caller's identity;
// a denied call is answered -32007 Forbidden, and the other members of its
// batch are served as usual.
//
// This package links nothing beyond the standard library and dispatch: the
// JWT built-in, which needs github.com/golang-jwt/jwt/v5, is in jwtauth.
package auth
