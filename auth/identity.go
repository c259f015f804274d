package auth

import (
	"context"
	"sync/atomic"
	"time"
)

// Identity is who a client proved to be.
type Identity struct {
	// Name identifies the client: a token's name, a JWT's subject ("jwt"
	// without one), a certificate's subject common name. [Rules] and the
	// rate limits of package netserver key on it.
	Name string
	// Scheme says how the client proved it: "bearer" (a static token),
	// "jwt", "mtls", or a custom authenticator's own word.
	Scheme string
	// Until bounds how long the identity may be reused without asking
	// the authenticator again: an HTTP keep-alive connection whose next
	// request carries the same Authorization header (byte for byte) keeps
	// it until then. Zero: every request is authenticated again (right for
	// an authenticator that reads other headers). A stream connection (TCP,
	// stdio, WebSocket) authenticates once and keeps its identity for its
	// lifetime, whatever Until says.
	Until time.Time
	// Attrs is whatever else the authenticator wants handlers to see (the
	// JWT's claims, the client certificate); nil for the built-ins'
	// tokens.
	Attrs any
}

// Forever is the Until of identities whose credential does not expire
// (static tokens, certificates checked at the handshake).
var Forever = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// Valid reports whether id may be reused at now (see Until).
func (id *Identity) Valid(now time.Time) bool { return id != nil && now.Before(id.Until) }

type identityKey struct{}

// Binding holds the identity of a connection inside its context, set once
// the client has authenticated: a transport whose clients authenticate
// with their first call (TCP, stdio) makes the connection's context with
// [Bind] before it knows who the client is. Set it before the handlers
// that should see it run.
type Binding struct{ id atomic.Pointer[Identity] }

// Set makes id the identity of the contexts derived from the binding's.
func (b *Binding) Set(id *Identity) { b.id.Store(id) }

// Identity returns the identity set, or nil.
func (b *Binding) Identity() *Identity { return b.id.Load() }

// identityCtx carries a Binding; one allocation holds both.
type identityCtx struct {
	context.Context
	b Binding
}

func (c *identityCtx) Value(key any) any {
	if _, ok := key.(identityKey); ok {
		return &c.b
	}
	return c.Context.Value(key)
}

// WithIdentity returns a copy of parent that carries id.
func WithIdentity(parent context.Context, id *Identity) context.Context {
	c := &identityCtx{Context: parent}
	c.b.Set(id)
	return c
}

// Bind returns a copy of parent that carries an identity to be set later,
// and the Binding that sets it.
func Bind(parent context.Context) (context.Context, *Binding) {
	c := &identityCtx{Context: parent}
	return c, &c.b
}

// IsIdentityKey reports whether key is the one IdentityOf asks a
// context's Value for. A context type of one's own that carries an
// identity (a pooled request context) answers that key with a *Binding.
func IsIdentityKey(key any) bool {
	_, ok := key.(identityKey)
	return ok
}

// IdentityOf returns the identity of the client whose message is being
// processed under ctx, or nil when it has none (no authenticator, or a
// transport that does not authenticate). It must not be changed.
func IdentityOf(ctx context.Context) *Identity {
	if b, _ := ctx.Value(identityKey{}).(*Binding); b != nil {
		return b.Identity()
	}
	return nil
}
