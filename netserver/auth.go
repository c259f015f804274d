package netserver

// NOTE: authentication and the per-client limits at the connection. A
// server with Options.Auth, RateLimit or MaxConnsPerIP has a security
// (sec below); each stream connection that needs checking per message gets a
// gate (core.gate, nil otherwise, so that a server without them pays one
// nil check per message).
//
// Where the identity comes from:
//
//   - HTTP: every request, from its headers (Authorization: Bearer), the
//     TLS state and the address. A keep-alive connection that sends the
//     same Authorization header again keeps the identity it got for it
//     until the identity's Until (no allocation, no second check). A
//     refused request gets 401 with WWW-Authenticate.
//   - WebSocket: the upgrade request, as HTTP (401 refuses the upgrade);
//     the connection keeps the identity for its lifetime.
//   - SSE: the POST that opens the stream, as HTTP.
//   - TCP and stdio: at the start, from the TLS client certificate (or
//     anything else the authenticator reads in a Request without a
//     token). When that gives no identity, the first message must be the
//     authenticating call
//
//     {"jsonrpc":"2.0","id":1,"method":"rpc.authenticate","params":{"token":"TOKEN"}}
//
//     (or "params":["TOKEN"]): TOKEN goes to the authenticator as a bearer
//     token would over HTTP, and the answer is {"name":..,"scheme":..}. Any
//     other first message, or a refused token, is answered -32006
//     Unauthorized (error.data says why) and the connection is closed after
//     that answer. rpc.* names are reserved for the server by the JSON-RPC
//     specification, so no method of the engine can clash with it; it is
//     answered only before authentication (later it is -32601 like any
//     unknown method).

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
	"github.com/valyala/fasthttp"
)

// ErrUnauthenticated is returned by ServeStdio when the client did not
// authenticate (Options.Auth).
var ErrUnauthenticated = errors.New("netserver: client refused: not authenticated")

// AuthMethod is the method a TCP or stdio client authenticates with.
const AuthMethod = "rpc.authenticate"

// sec is a server's authentication and per-client limits. (The Origin
// policy is applied before, with the Host check and CORS: cors.go.)
type sec struct {
	authn   auth.Authenticator // nil: none
	clients *clients           // nil: no per-client limit
}

func newSec(opts *Options) *sec {
	o := opts.or()
	cs := newClients(opts)
	if o.Clients != nil {
		cs = o.Clients.cs
	}
	return &sec{authn: o.Auth, clients: cs}
}

// gated reports whether stream connections need a gate.
func (s *sec) gated() bool { return s.authn != nil || s.clients.limited() }

// gate is a stream connection's state for admitting messages.
type gate struct {
	sec     *sec
	pending bool          // not authenticated yet: the first message must authenticate
	asked   bool          // authenticateConn ran
	refused bool          // the connection is closing unauthenticated
	binding *auth.Binding // where the identity goes (TCP, stdio)
	remote  net.Addr
	cl      *bucket // the bucket; nil without a rate limit
}

// bind returns parent ready to take the identity of a stream connection
// that authenticates itself (TCP, stdio), and its binding; parent and nil
// without Options.Auth.
func (s *sec) bind(parent context.Context) (context.Context, *auth.Binding) {
	if s.authn == nil {
		return parent, nil
	}
	return auth.Bind(parent)
}

// newGate returns the gate of a stream connection, or nil when none is
// needed. With binding set the connection authenticates itself (TCP,
// stdio); id is the identity an HTTP upgrade established.
func (s *sec) newGate(remote net.Addr, binding *auth.Binding, id *auth.Identity) *gate {
	if s == nil || !s.gated() {
		return nil
	}
	g := &gate{sec: s, remote: remote, binding: binding}
	g.pending = binding != nil && s.authn != nil
	g.cl = s.clients.get(keyOf(id, remote), time.Now())
	return g
}

// close gives the gate's bucket back.
func (g *gate) close() {
	if g != nil {
		g.sec.clients.put(g.cl)
		g.cl = nil
	}
}

// setIdentity makes id the connection's, and its bucket id's.
func (g *gate) setIdentity(id *auth.Identity) {
	g.binding.Set(id)
	g.pending = false
	if cs := g.sec.clients; cs.limited() {
		cs.put(g.cl)
		g.cl = cs.get(keyOf(id, g.remote), time.Now())
	}
}

// authenticateConn asks the authenticator about a stream connection as it
// starts (after its TLS handshake): an identity from its certificate (or
// address) spares it the authenticating call.
func (c *core) authenticateConn() {
	g := c.gate
	if g == nil || !g.pending || g.asked {
		return
	}
	g.asked = true
	r := auth.Request{Transport: c.via.String(), Remote: g.remote, TLS: TLSState(c.dc.Context())}
	if id, err := g.sec.authn.Authenticate(&r); err == nil && id != nil {
		g.setIdentity(id)
	}
}

// admit decides whether the reader handles msg (true) or has answered it
// itself: the authenticating call, a message before authentication, a
// message over the rate limit.
func (c *core) admit(msg []byte) bool {
	g := c.gate
	switch {
	case g.refused:
		return false
	case g.pending:
		c.authenticateCall(msg)
		return false
	case g.cl == nil:
		return true
	}
	n := countCalls(msg)
	if n == 0 || g.cl.allow(time.Now(), n) {
		return true
	}
	c.lim.observe(c.via, ConnRateLimited)
	b, mark := c.t.begin(c.local.B)
	start := len(b)
	b = c.dc.Reject(b, msg, encode.CodeLimitExceeded)
	if len(b) == start {
		b = b[:mark]
	} else {
		b = c.t.end(b, mark)
	}
	c.local.B = b
	return false
}

var (
	authFirstData = encode.AppendString(nil, `authenticate first: call `+AuthMethod+` with {"token": TOKEN}`)
	authNoToken   = encode.AppendString(nil, AuthMethod+` needs params {"token": TOKEN} or [TOKEN]`)
)

// authenticateCall handles the first message of a connection that must
// authenticate.
func (c *core) authenticateCall(msg []byte) {
	g := c.gate
	var p decode.Parser
	m, err := p.Parse(msg)
	var id []byte
	if err == nil && m.Kind != decode.Batch {
		id = m.ID
	}
	if err != nil || (m.Kind != decode.Call && m.Kind != decode.Notification) || string(m.Method) != AuthMethod {
		c.refuse(id, authFirstData)
		return
	}
	if g.cl != nil && !g.cl.allow(time.Now(), 1) { // the address's bucket: attempts count as calls
		c.lim.observe(c.via, ConnRateLimited)
		c.refuseWith(id, encode.CodeLimitExceeded, nil)
		return
	}
	token, ok := tokenParam(m.Params)
	if !ok {
		c.refuse(id, authNoToken)
		return
	}
	r := auth.Request{Transport: c.via.String(), Remote: g.remote, TLS: TLSState(c.dc.Context()), Token: token}
	who, err := g.sec.authn.Authenticate(&r)
	if err != nil || who == nil {
		if err == nil {
			err = auth.ErrNoCredentials
		}
		c.refuse(id, encode.AppendString(nil, auth.Reason(err)))
		return
	}
	g.setIdentity(who)
	if m.Kind == decode.Notification {
		return
	}
	result := append(encode.AppendString(append([]byte(nil), `{"name":`...), who.Name), `,"scheme":`...)
	result = append(encode.AppendString(result, who.Scheme), '}')
	b, mark := c.t.begin(c.local.B)
	c.local.B = c.t.end(encode.AppendResult(b, id, result), mark)
}

// tokenParam returns the token of the authenticating call's params:
// {"token": "..."} or ["..."].
func tokenParam(params []byte) ([]byte, bool) {
	var it decode.Iter
	if !it.Reset(params) {
		return nil, false
	}
	for it.Next() {
		if it.IsObject() && !decode.KeyEquals(it.Key(), "token") {
			continue
		}
		v := it.Value()
		if len(v) < 2 || v[0] != '"' {
			return nil, false
		}
		t, err := decode.AppendUnquote(nil, v)
		return t, err == nil && len(t) > 0
	}
	return nil, false
}

// refuse answers -32006 (with id, nil for null) and closes the connection
// once the answer is written. A client that tries again must reconnect; with
// RateLimit each attempt costs its address a call, so that guessing over
// new connections is limited like a flood of calls.
func (c *core) refuse(id, data []byte) {
	c.lim.observe(c.via, ConnUnauthorized)
	c.lim.log.Info("netserver: client not authenticated; closing", "remote", c.remote(),
		"reason", bytesconv.B2S(data))
	c.refuseWith(id, encode.CodeUnauthorized, data)
}

// refuseWith answers code and closes the connection once the answer is
// written.
func (c *core) refuseWith(id []byte, code encode.Code, data []byte) {
	c.gate.refused = true
	b, mark := c.t.begin(c.local.B)
	b = encode.AppendError(b, id, code, code.String(), data)
	c.local.B = c.t.end(b, mark)
	c.mu.Lock()
	c.stopping.Store(true) // readLoop ends once the answer is handed over
	c.mu.Unlock()
}

// refusedErr maps the end of reading of a connection refused by its gate to
// ErrUnauthenticated.
func (c *core) refusedErr(err error) error {
	if err == errStopped && c.gate != nil && c.gate.refused {
		return ErrUnauthenticated
	}
	return err
}

// ---- HTTP ----

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

// failureLimited charges a refused authentication to the bucket of the
// client's address and reports whether that bucket was empty: with a rate
// limit, a client guessing credentials gets 429 once it has used its rate
// on failures, as a flood of calls does.
func (s *sec) failureLimited(remote net.Addr, now time.Time) bool {
	cs := s.clients
	if !cs.limited() {
		return false
	}
	b := cs.get(clientKey{ip: ipOf(remote)}, now)
	ok := b.allow(now, 1)
	cs.put(b)
	return !ok
}

// withIdentity returns parent carrying id, or parent for nil.
func withIdentity(parent context.Context, id *auth.Identity) context.Context {
	if id == nil {
		return parent
	}
	return auth.WithIdentity(parent, id)
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
