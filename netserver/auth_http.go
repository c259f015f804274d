package netserver

// NOTE: authentication and the rate limit over HTTP (auth.go has the
// overview): admitFast for HTTPServer (POSTs, event streams, WebSocket
// upgrades, documents, routes), with an httpAuth per connection that keeps
// the identity of its last token; admit for the net/http adapter, which
// checks every request on its own.

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/valyala/fasthttp"
)

// httpAuth is what an HTTP connection remembers of its last request's
// authentication, and its bucket.
type httpAuth struct {
	token []byte          // the bearer token it was for (a copy)
	id    *auth.Identity  // nil: none yet
	ctx   context.Context // the connection's context with id
	cl    atomic.Pointer[bucket]
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

// admitFast checks a fasthttp request (a POST, an event stream, a
// WebSocket upgrade, a document, a route) before it is served, once its
// Host and Origin passed (cors.go): its connection's standing, its
// authentication and its client's rate, for calls calls. It answers a
// refused request itself (401, 429) and
// returns false; otherwise the context its messages run under (nil: the
// usual one) and the identity (nil: none).
func (s *HTTPServer) admitFast(ctx *fasthttp.RequestCtx, calls int) (context.Context, *auth.Identity, bool) {
	sc := s.lim.sec
	hc, _ := httpConnOf(ctx.Conn())
	if hc != nil && hc.overLimit {
		s.lim.observe(HTTP, ConnRateLimited)
		tooMany(ctx, 1)
		ctx.SetConnectionClose()
		return nil, nil, false
	}
	if sc.authn == nil && !sc.clients.limited() {
		return nil, nil, true
	}
	var st *httpAuth
	if hc != nil {
		st = &hc.auth
	} else {
		st = new(httpAuth) // a fasthttp server of the caller's own: no connection state
	}
	var rctx context.Context
	var id *auth.Identity
	if sc.authn != nil {
		var ok bool
		if id, ok = s.authenticateFast(ctx, hc, st); !ok {
			return nil, nil, false
		}
		rctx = st.ctx
	}
	if cs := sc.clients; cs.limited() && calls > 0 {
		now := time.Now()
		var key clientKey
		switch {
		case id != nil:
			key.name = id.Name
		case hc != nil:
			key.ip = hc.ip
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
			s.lim.observe(HTTP, ConnRateLimited)
			tooMany(ctx, cs.retryAfter(cl, calls, now))
		}
		if hc == nil {
			cs.put(cl)
		}
		if !ok {
			return nil, nil, false
		}
	}
	return rctx, id, true
}

// authenticateFast returns the identity of a fasthttp request, reusing
// the connection's when the request carries the same token within its
// Until; st.ctx is then the connection's context with it.
func (s *HTTPServer) authenticateFast(ctx *fasthttp.RequestCtx, hc *httpConn, st *httpAuth) (*auth.Identity, bool) {
	token := bearer(ctx.Request.Header.PeekBytes(authorizationHeader))
	if st.id != nil && string(token) == string(st.token) &&
		(st.id.Until.Equal(auth.Forever) || st.id.Valid(time.Now())) { // no clock read for a static token
		return st.id, true
	}
	now := time.Now()
	parent := s.ctx
	var remote net.Addr = ctx.RemoteAddr()
	if hc != nil {
		parent, remote = hc.ctx, hc.RemoteAddr()
	}
	r := auth.Request{Transport: HTTP.String(), Remote: remote, TLS: TLSState(parent),
		Header: fastHeader{&ctx.Request.Header}, Token: token}
	id, err := s.lim.sec.authn.Authenticate(&r)
	if err != nil || id == nil {
		if s.lim.sec.failureLimited(remote, now) {
			s.lim.observe(HTTP, ConnRateLimited)
			tooMany(ctx, 1)
			return nil, false
		}
		s.lim.observe(HTTP, ConnUnauthorized)
		unauthorized(ctx, len(token) > 0, err)
		return nil, false
	}
	if id != st.id {
		st.ctx = auth.WithIdentity(parent, id)
	}
	st.id, st.token = id, append(st.token[:0], token...)
	return id, true
}

// unauthorized answers 401 with a WWW-Authenticate challenge (RFC 6750:
// error="invalid_token" when a token was refused).
func unauthorized(ctx *fasthttp.RequestCtx, hadToken bool, err error) {
	if err == nil {
		err = auth.ErrNoCredentials
	}
	ctx.Error(auth.Reason(err), fasthttp.StatusUnauthorized)
	ctx.Response.Header.Set(fasthttp.HeaderWWWAuthenticate, challenge(hadToken))
}

func challenge(hadToken bool) string {
	if hadToken {
		return `Bearer realm="jetrpc", error="invalid_token"`
	}
	return `Bearer realm="jetrpc"`
}

// tooMany answers 429 with Retry-After.
func tooMany(ctx *fasthttp.RequestCtx, retryAfter int) {
	ctx.Error("rate limit exceeded", fasthttp.StatusTooManyRequests)
	ctx.Response.Header.Set(fasthttp.HeaderRetryAfter, strconv.Itoa(retryAfter))
}

// admitConn counts a new HTTP connection for MaxConnsPerIP; over it, the
// connection's requests are refused.
func (c *httpConn) admitConn() {
	cs := c.lim.sec.clients
	if cs == nil {
		return
	}
	c.ip = ipOf(c.Conn.RemoteAddr()) // for MaxConnsPerIP and the rate limit
	if !cs.openConn(c.ip) {
		c.overLimit = true
		c.lim.observe(HTTP, ConnMaxConnsPerIP)
	}
}

// closeClient gives back what the connection held of its client (once,
// from Close).
func (c *httpConn) closeClient() {
	cs := c.lim.sec.clients
	if cs == nil {
		return
	}
	if cs.perIP > 0 && !c.overLimit {
		cs.closeConn(c.ip)
	}
	cs.put(c.auth.cl.Swap(nil))
}

// has reports whether ctx asks for a document's path.
func (d documents) has(ctx *fasthttp.RequestCtx) bool {
	_, ok := d[string(ctx.Path())]
	return ok
}

// identityUserKey holds the identity's context of a request served by a
// fasthttp server of the caller's own (no httpConn to keep it in).
const identityUserKey = "jetrpc.identity"

// admitPost admits a POST (an event stream too) of body, answering it
// itself when refused; the identity's context is then where
// identityContext finds it.
func (s *HTTPServer) admitPost(ctx *fasthttp.RequestCtx, body []byte) bool {
	calls := 0
	if s.lim.sec.clients.limited() {
		calls = countCalls(body)
	}
	return s.admitKeep(ctx, calls)
}

// admitGet admits a GET of a document (it costs no call).
func (s *HTTPServer) admitGet(ctx *fasthttp.RequestCtx) bool { return s.admitKeep(ctx, 0) }

func (s *HTTPServer) admitKeep(ctx *fasthttp.RequestCtx, calls int) bool {
	rctx, _, ok := s.admitFast(ctx, calls)
	if ok && rctx != nil {
		if _, own := httpConnOf(ctx.Conn()); !own {
			ctx.SetUserValue(identityUserKey, rctx)
		}
	}
	return ok
}

// identityContext returns the context, with the request's identity, that
// the request's messages run under; nil without Options.Auth.
func (s *HTTPServer) identityContext(ctx *fasthttp.RequestCtx) context.Context {
	if s.lim.sec.authn == nil {
		return nil
	}
	if hc, ok := httpConnOf(ctx.Conn()); ok {
		return hc.auth.ctx
	}
	c, _ := ctx.UserValue(identityUserKey).(context.Context)
	return c
}

// admitRoute admits a request to one of Options.Routes (an MCP endpoint):
// a POST's body is JSON-RPC, whose calls count for the rate limit.
func (s *HTTPServer) admitRoute(ctx *fasthttp.RequestCtx) bool {
	if ctx.IsPost() {
		return s.admitPost(ctx, ctx.PostBody())
	}
	return s.admitGet(ctx)
}

// RequestIdentity returns the identity Options.Auth gave a request that
// HTTPServer admitted (nil without one), for the handlers of
// Options.Routes, which run outside the engine's contexts.
func RequestIdentity(ctx *fasthttp.RequestCtx) *auth.Identity {
	if hc, ok := httpConnOf(ctx.Conn()); ok {
		return hc.auth.id
	}
	if c, _ := ctx.UserValue(identityUserKey).(context.Context); c != nil {
		return auth.IdentityOf(c)
	}
	return nil
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

// admit is admitFast for the net/http adapter: every request is checked
// on its own (net/http keeps no connection state of ours). It returns r
// with the identity in its context.
func (h *stdHandler) admit(w http.ResponseWriter, r *http.Request, body []byte) (*http.Request, bool) {
	sc := h.lim.sec
	var id *auth.Identity
	if sc.authn != nil {
		token := bearer([]byte(r.Header.Get("Authorization")))
		req := auth.Request{Transport: HTTP.String(), Remote: stdAddr(r.RemoteAddr), TLS: r.TLS,
			Header: stdHeader(r.Header), Token: token}
		var err error
		if id, err = sc.authn.Authenticate(&req); err != nil || id == nil {
			if sc.failureLimited(stdAddr(r.RemoteAddr), time.Now()) {
				h.lim.observe(HTTP, ConnRateLimited)
				w.Header().Set("Retry-After", "1")
				http.Error(w, "rate limit exceeded", http.StatusTooManyRequests)
				return r, false
			}
			h.lim.observe(HTTP, ConnUnauthorized)
			if err == nil {
				err = auth.ErrNoCredentials
			}
			w.Header().Set("WWW-Authenticate", challenge(len(token) > 0))
			http.Error(w, auth.Reason(err), http.StatusUnauthorized)
			return r, false
		}
		r = r.WithContext(auth.WithIdentity(r.Context(), id))
	}
	if cs := sc.clients; cs.limited() && body != nil {
		if calls := countCalls(body); calls > 0 {
			now := time.Now()
			cl := cs.get(keyOf(id, stdAddr(r.RemoteAddr)), now)
			ok := cl.allow(now, calls)
			if !ok {
				h.lim.observe(HTTP, ConnRateLimited)
				w.Header().Set("Retry-After", strconv.Itoa(cs.retryAfter(cl, calls, now)))
				http.Error(w, "rate limit exceeded", http.StatusTooManyRequests)
			}
			cs.put(cl)
			if !ok {
				return r, false
			}
		}
	}
	return r, true
}
