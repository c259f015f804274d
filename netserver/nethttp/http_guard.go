package nethttp

// NOTE: the HTTP side of package guard (netserver.Options.Guard): the browser layer
// first (Host, Origin, CORS), then a request's authentication and rate,
// with the connection's guard.ConnState; each refusal is reported to the
// Observer here. auth.go has the stream connections' side.

import (
	"context"
	"net/http"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/internal/seam"
	"github.com/valyala/fasthttp"
)

// refusalEvents are the observer's events for the guard's refusals.
var refusalEvents = [...]netserver.ConnEvent{
	guard.HostRefused:    netserver.ConnHostRefused,
	guard.OriginRefused:  netserver.ConnOriginRefused,
	guard.Unauthorized:   netserver.ConnUnauthorized,
	guard.RateLimited:    netserver.ConnRateLimited,
	guard.OverConnsPerIP: netserver.ConnMaxConnsPerIP,
}

// refused reports a refusal of the guard on transport t (nothing for
// guard.Allowed).
func (l *limits) refused(t netserver.Transport, why guard.Refusal) {
	if why != guard.Allowed && int(why) < len(refusalEvents) {
		l.observe(t, refusalEvents[why])
	}
}

// browser runs the browser layer on a fasthttp request: false means it
// has been answered. After true, the response needs guard.FinishBrowser
// with origin.
func (s *HTTPServer) browser(ctx *fasthttp.RequestCtx) (origin []byte, ok bool) {
	origin, why, ok := s.lim.sec.AdmitBrowser(ctx)
	s.lim.refused(netserver.HTTP, why)
	return origin, ok
}

// admitFast checks a fasthttp request once the browser layer passed it:
// its authentication and its client's rate, for calls calls. It returns
// the context its messages run under (nil: the usual one) and the
// identity (nil: none); a refused request has been answered.
func (s *HTTPServer) admitFast(ctx *fasthttp.RequestCtx, calls int) (context.Context, *auth.Identity, bool) {
	var st *guard.ConnState
	if hc, ok := httpConnOf(ctx.Conn()); ok {
		st = &hc.guard
	}
	rctx, id, why, ok := s.lim.sec.AdmitRequest(ctx, st, s.ctx, calls)
	s.lim.refused(netserver.HTTP, why)
	return rctx, id, ok
}

// identityUserKey holds the identity's context of a request served by a
// fasthttp server of the caller's own (no httpConn to keep it in).
const identityUserKey = "jetrpc.identity"

// admitPost admits a POST (an event stream too) of body, answering it
// itself when refused; the identity's context is then where
// identityContext finds it.
func (s *HTTPServer) admitPost(ctx *fasthttp.RequestCtx, body []byte) bool {
	return s.admitKeep(ctx, s.lim.sec.Calls(body))
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

// admitRoute admits a request to one of netserver.Options.Routes (an MCP endpoint):
// a POST's body is JSON-RPC, whose calls count for the rate limit.
func (s *HTTPServer) admitRoute(ctx *fasthttp.RequestCtx) bool {
	if ctx.IsPost() {
		return s.admitPost(ctx, ctx.PostBody())
	}
	return s.admitGet(ctx)
}

// has reports whether ctx asks for a document's path.
func (d documents) has(ctx *fasthttp.RequestCtx) bool {
	_, ok := d[string(ctx.Path())]
	return ok
}

// identityContext returns the context, with the request's identity, that
// the request's messages run under; nil without guard.Options.Auth.
func (s *HTTPServer) identityContext(ctx *fasthttp.RequestCtx) context.Context {
	if !s.lim.sec.Authenticates() {
		return nil
	}
	if hc, ok := httpConnOf(ctx.Conn()); ok {
		return hc.guard.IdentityContext()
	}
	c, _ := ctx.UserValue(identityUserKey).(context.Context)
	return c
}

// RequestIdentity returns the identity the server's guard (netserver.Options.Guard)
// gave a request that HTTPServer admitted (nil without one), for the
// handlers of netserver.Options.Routes, which run outside the engine's contexts.
func RequestIdentity(ctx *fasthttp.RequestCtx) *auth.Identity {
	if hc, ok := httpConnOf(ctx.Conn()); ok {
		return hc.guard.Identity()
	}
	if c, _ := ctx.UserValue(identityUserKey).(context.Context); c != nil {
		return auth.IdentityOf(c)
	}
	return nil
}

// admitConn counts a new HTTP connection for MaxConnsPerIP; over it, the
// connection's requests are refused.
func (c *httpConn) admitConn() {
	c.guard.Context, c.guard.Remote = c.ctx, c.Conn.RemoteAddr()
	if st, _ := seam.TLSSlot(c.ctx); st != nil {
		c.guard.TLS = st // filled in by the handshake, before the first request
	}
	c.lim.refused(netserver.HTTP, c.lim.sec.OpenHTTP(&c.guard))
}

// admitStd runs the guard on a net/http request: the browser layer, then
// (with admit) its authentication and rate, its calls counted in body
// (nil: a GET). It returns r with the identity in its context; a refused
// request has been answered.
func (h *stdHandler) admitStd(w http.ResponseWriter, r *http.Request) bool {
	why, ok := h.lim.sec.AdmitBrowserStd(w, r)
	h.lim.refused(netserver.HTTP, why)
	return ok
}

func (h *stdHandler) admit(w http.ResponseWriter, r *http.Request, body []byte) (*http.Request, bool) {
	r, why, ok := h.lim.sec.AdmitStd(w, r, stdAddr(r.RemoteAddr), body)
	h.lim.refused(netserver.HTTP, why)
	return r, ok
}
