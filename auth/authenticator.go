package auth

import (
	"crypto/tls"
	"errors"
	"net"
)

// Request is what a transport knows of a client it authenticates. Its
// slices and Header are valid only during the call to Authenticate.
type Request struct {
	// Transport is the transport's name: "tcp", "stdio", "http", "ws",
	// "sse" (package netserver's).
	Transport string
	// Remote is the client's address (nil when unknown, as for stdio).
	Remote net.Addr
	// TLS is the state of the connection's TLS session, with the peer's
	// certificates; nil without TLS.
	TLS *tls.ConnectionState
	// Header gives the request's HTTP headers (over HTTP, for a WebSocket
	// upgrade and an event stream); nil on TCP and stdio.
	Header Header
	// Token is the bearer credential: the token of the "Authorization:
	// Bearer <token>" header over HTTP, or the token of the authenticating
	// call on TCP and stdio (see netserver); nil when there is none.
	Token []byte
}

// Header reads one HTTP request header. Peek returns the first value of
// the named header (case-insensitive), or nil; valid only during the call.
type Header interface {
	Peek(name string) []byte
}

// Authenticator decides who a client is. Authenticate returns the
// client's identity, or an error: [ErrNoCredentials] when the request
// carries nothing this authenticator reads, an [*Error] to refuse it with a
// reason the client may be told, any other error to refuse it with
// "invalid credentials" (the error itself is only logged). It is called
// concurrently and must be quick: it runs before every HTTP request that
// does not reuse its connection's identity (see Identity.Until), and once
// per stream connection.
type Authenticator interface {
	Authenticate(r *Request) (*Identity, error)
}

// Func adapts a function to an Authenticator.
type Func func(r *Request) (*Identity, error)

// Authenticate calls f.
func (f Func) Authenticate(r *Request) (*Identity, error) { return f(r) }

var _ Authenticator = Func(nil)

// Error refuses a credential with a reason the client may be told ("stale
// token", "unknown token"): HTTP answers 401 with it, a stream connection
// puts it in the error's data.
type Error struct{ Reason string }

func (e *Error) Error() string { return "auth: " + e.Reason }

// ErrNoCredentials: the request carries no credential the authenticator
// reads. HTTP answers 401 with "WWW-Authenticate: Bearer"; a stream
// connection may still authenticate with its first call.
var ErrNoCredentials error = &Error{Reason: "missing credentials"}

// Reason is what the client is told about err, an error of Authenticate:
// an *Error's reason, else "invalid credentials".
func Reason(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return "invalid credentials"
}

// ErrUnknownToken: the request's token is not one of this authenticator's
// (Tokens). [Any] reports it only when no other authenticator had
// something more specific to say ("stale token" from a JWT's).
var ErrUnknownToken error = &Error{Reason: "unknown token"}

// Any returns an Authenticator that asks each of as in turn and returns
// the first identity one of them gives. When none does, it fails with the
// first error that is neither ErrNoCredentials nor ErrUnknownToken, else
// with ErrUnknownToken if one gave it, else with ErrNoCredentials. Nil
// authenticators are skipped.
func Any(as ...Authenticator) Authenticator {
	var list anyOf
	for _, a := range as {
		if a != nil {
			list = append(list, a)
		}
	}
	if len(list) == 1 {
		return list[0]
	}
	return list
}

type anyOf []Authenticator

func (as anyOf) Authenticate(r *Request) (*Identity, error) {
	var first error
	unknown := false
	for _, a := range as {
		id, err := a.Authenticate(r)
		switch {
		case err == nil && id != nil:
			return id, nil
		case errors.Is(err, ErrUnknownToken):
			unknown = true
		case err != nil && first == nil && !errors.Is(err, ErrNoCredentials):
			first = err
		}
	}
	switch {
	case first != nil:
		return nil, first
	case unknown:
		return nil, ErrUnknownToken
	}
	return nil, ErrNoCredentials
}
