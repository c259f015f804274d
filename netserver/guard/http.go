package guard

// NOTE: authentication and the rate limit over HTTP (doc.go has the
// overview): AdmitRequest for a fasthttp server (POSTs, event streams,
// WebSocket upgrades, documents, routes), with a ConnState per connection
// that keeps the identity of its last token and its client's bucket;
// AdmitStd for net/http, which checks every request on its own.

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/valyala/fasthttp"
)

// ConnState is what an HTTP connection keeps for its guard: the identity
// of its last request's token, its client's bucket, and whether it is over
// MaxConnsPerIP. Its zero value is ready; the server sets the exported
// fields when it accepts the connection (OpenHTTP) and hands it to
// AdmitRequest with each request. It is the connection's goroutine's.
type ConnState struct {
	// Context is the connection's context, which its requests' contexts
	// derive from.
	Context context.Context
	// Remote is the client's address.
	Remote net.Addr
	// TLS is the connection's TLS state (nil: none), read once its
	// handshake is done, before its first request.
	TLS *tls.ConnectionState

	token     []byte          // the bearer token id was for (a copy)
	id        *auth.Identity  // nil: none yet
	ctx       context.Context // Context with id
	cl        atomic.Pointer[bucket]
	ip        netip.Addr   // the client's address, counted for MaxConnsPerIP unless overLimit
	overLimit bool         // over MaxConnsPerIP: its requests get 429
	req       auth.Request // what authenticate hands the authenticator
}

// Identity returns the identity of the connection's last request (nil:
// none).
func (st *ConnState) Identity() *auth.Identity { return st.id }

// IdentityContext returns Context with the identity of the connection's
// last request (nil without Auth).
func (st *ConnState) IdentityContext() context.Context { return st.ctx }

// OpenHTTP counts a new HTTP connection (st.Remote) for MaxConnsPerIP and
// returns OverConnsPerIP when it is over (its requests are then refused
// with 429); CloseHTTP gives back what it holds.
func (g *Guard) OpenHTTP(st *ConnState) Refusal {
	cs := g.clients
	if cs == nil {
		return Allowed
	}
	st.ip = ipOf(st.Remote) // for MaxConnsPerIP and the rate limit
	if !cs.openConn(st.ip) {
		st.overLimit = true
		return OverConnsPerIP
	}
	return Allowed
}

// CloseHTTP gives back what an HTTP connection held of its client (once).
func (g *Guard) CloseHTTP(st *ConnState) {
	cs := g.clients
	if cs == nil {
		return
	}
	if cs.perIP > 0 && !st.overLimit {
		cs.closeConn(st.ip)
	}
	cs.put(st.cl.Swap(nil))
}

// fastHeader reads a fasthttp request's headers (auth.Header).
type fastHeader struct{ h *fasthttp.RequestHeader }

func (f fastHeader) Peek(name string) []byte { return f.h.Peek(name) }

var authorizationHeader = []byte(fasthttp.HeaderAuthorization)

// bearer returns the token of an Authorization header "Bearer TOKEN"
// (the scheme in any case), nil for another scheme or none.
func bearer(h []byte) []byte {
	const scheme = "bearer "
	if len(h) <= len(scheme) {
		return nil
	}
	for i := range len(scheme) {
		if h[i]|0x20 != scheme[i] && h[i] != scheme[i] {
			return nil
		}
	}
	t := h[len(scheme):]
	for len(t) > 0 && t[0] == ' ' {
		t = t[1:]
	}
	return t
}

// AdmitRequest checks a fasthttp request (a POST, an event stream, a
// WebSocket upgrade, a document, a route) before it is served, once
// AdmitBrowser passed it: its connection's standing, its authentication
// and its client's rate, for calls calls (see Calls). st is its
// connection's state; nil for a fasthttp server of the caller's own, whose
// requests then run under parent. It answers a refused request itself
// (401, 429) and returns false and why; otherwise the context its messages
// run under (nil: the usual one) and the identity (nil: none).
func (g *Guard) AdmitRequest(ctx *fasthttp.RequestCtx, st *ConnState, parent context.Context,
	calls int) (context.Context, *auth.Identity, Refusal, bool) {
	own := st != nil
	if own && st.overLimit {
		tooMany(ctx, 1)
		ctx.SetConnectionClose()
		return nil, nil, RateLimited, false
	}
	if g.authn == nil && !g.clients.limited() || g.isPublic(ctx) {
		return nil, nil, Allowed, true
	}
	if !own {
		st = &ConnState{Context: parent, Remote: ctx.RemoteAddr()} // no connection state
	}
	var rctx context.Context
	var id *auth.Identity
	if g.authn != nil {
		var why Refusal
		if id, why = g.authenticate(ctx, st); why != Allowed {
			return nil, nil, why, false
		}
		rctx = st.ctx
	}
	if cs := g.clients; cs.limited() && calls > 0 {
		now := time.Now()
		var key clientKey
		switch {
		case id != nil:
			key.name = id.Name
		case own:
			key.ip = st.ip
		default:
			key.ip = ipOf(ctx.RemoteAddr())
		}
		cl := st.cl.Load()
		if cl == nil || cl.key != key {
			cl = cs.get(key, now)
			cs.put(st.cl.Swap(cl))
		}
		ok := cl.allow(now, calls)
		if !ok {
			tooMany(ctx, cs.retryAfter(cl, calls, now))
		}
		if !own {
			cs.put(cl)
		}
		if !ok {
			return nil, nil, RateLimited, false
		}
	}
	return rctx, id, Allowed, true
}

// authenticate returns the identity of a fasthttp request, reusing the
// connection's when the request carries the same token within its Until;
// st.ctx is then the connection's context with it.
func (g *Guard) authenticate(ctx *fasthttp.RequestCtx, st *ConnState) (*auth.Identity, Refusal) {
	token := bearer(ctx.Request.Header.PeekBytes(authorizationHeader))
	if st.id != nil && string(token) == string(st.token) &&
		(st.id.Until.Equal(auth.Forever) || st.id.Valid(time.Now())) { // no clock read for a static token
		return st.id, Allowed
	}
	now := time.Now()
	r := &st.req // the connection's: no allocation per request
	*r = auth.Request{Transport: "http", Remote: st.Remote, TLS: st.TLS,
		Header: fastHeader{&ctx.Request.Header}, Token: token}
	id, err := g.authn.Authenticate(r)
	*r = auth.Request{} // holds nothing of the request
	if err != nil || id == nil {
		if g.failureLimited(st.Remote, now) {
			tooMany(ctx, 1)
			return nil, RateLimited
		}
		g.unauthorized(ctx, len(token) > 0, err)
		return nil, Unauthorized
	}
	if id != st.id {
		st.ctx = auth.WithIdentity(st.Context, id)
	}
	st.id, st.token = id, append(st.token[:0], token...)
	return id, Allowed
}

// failureLimited charges a refused authentication to the bucket of the
// client's address and reports whether that bucket was empty: with a rate
// limit, a client guessing credentials gets 429 once it has used its rate
// on failures, as a flood of calls does.
func (g *Guard) failureLimited(remote net.Addr, now time.Time) bool {
	cs := g.clients
	if !cs.limited() {
		return false
	}
	b := cs.get(clientKey{ip: ipOf(remote)}, now)
	ok := b.allow(now, 1)
	cs.put(b)
	return !ok
}

// isPublic reports whether a fasthttp request is a GET or HEAD of one of
// Options.Public.
func (g *Guard) isPublic(ctx *fasthttp.RequestCtx) bool {
	return g.public != nil && (ctx.IsGet() || ctx.IsHead()) && g.public[string(ctx.Path())]
}

// unauthorized answers 401 with a WWW-Authenticate challenge (RFC 6750:
// error="invalid_token" when a token was refused; Options.Challenge's
// when set).
func (g *Guard) unauthorized(ctx *fasthttp.RequestCtx, hadToken bool, err error) {
	if err == nil {
		err = auth.ErrNoCredentials
	}
	ctx.Error(auth.Reason(err), fasthttp.StatusUnauthorized)
	ctx.Response.Header.SetBytesV(fasthttp.HeaderWWWAuthenticate, g.appendChallenge(nil, hadToken, err))
}

// appendChallenge appends the WWW-Authenticate value of a 401 for err.
func (g *Guard) appendChallenge(dst []byte, hadToken bool, err error) []byte {
	if g.challenge != nil {
		return g.challenge(dst, err)
	}
	if hadToken {
		return append(dst, `Bearer realm="jetrpc", error="invalid_token"`...)
	}
	return append(dst, `Bearer realm="jetrpc"`...)
}

// tooMany answers 429 with Retry-After.
func tooMany(ctx *fasthttp.RequestCtx, retryAfter int) {
	ctx.Error("rate limit exceeded", fasthttp.StatusTooManyRequests)
	ctx.Response.Header.Set(fasthttp.HeaderRetryAfter, strconv.Itoa(retryAfter))
}

// ---- net/http ----

// stdHeader reads a net/http request's headers (auth.Header).
type stdHeader http.Header

func (h stdHeader) Peek(name string) []byte {
	if v := http.Header(h).Get(name); v != "" {
		return []byte(v)
	}
	return nil
}

// AdmitStd is AdmitRequest for net/http: every request is checked on its
// own (net/http keeps no connection state of ours), its calls counted in
// body (nil: none, a GET). remote is the request's RemoteAddr. It returns
// r with the identity in its context.
func (g *Guard) AdmitStd(w http.ResponseWriter, r *http.Request, remote net.Addr, body []byte) (*http.Request, Refusal, bool) {
	var id *auth.Identity
	public := g.public != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) && g.public[r.URL.Path]
	if g.authn != nil && !public {
		token := bearer([]byte(r.Header.Get("Authorization")))
		req := auth.Request{Transport: "http", Remote: remote, TLS: r.TLS,
			Header: stdHeader(r.Header), Token: token}
		var err error
		if id, err = g.authn.Authenticate(&req); err != nil || id == nil {
			if g.failureLimited(remote, time.Now()) {
				w.Header().Set("Retry-After", "1")
				http.Error(w, "rate limit exceeded", http.StatusTooManyRequests)
				return r, RateLimited, false
			}
			if err == nil {
				err = auth.ErrNoCredentials
			}
			w.Header().Set("WWW-Authenticate", string(g.appendChallenge(nil, len(token) > 0, err)))
			http.Error(w, auth.Reason(err), http.StatusUnauthorized)
			return r, Unauthorized, false
		}
		r = r.WithContext(auth.WithIdentity(r.Context(), id))
	}
	if cs := g.clients; cs.limited() && body != nil {
		if calls := g.Calls(body); calls > 0 { // Options.Cost, else countCalls
			now := time.Now()
			cl := cs.get(keyOf(id, remote), now)
			ok := cl.allow(now, calls)
			if !ok {
				w.Header().Set("Retry-After", strconv.Itoa(cs.retryAfter(cl, calls, now)))
				http.Error(w, "rate limit exceeded", http.StatusTooManyRequests)
			}
			cs.put(cl)
			if !ok {
				return r, RateLimited, false
			}
		}
	}
	return r, Allowed, true
}
