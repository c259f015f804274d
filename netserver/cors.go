package netserver

// NOTE: the browser layer of both HTTP servers (#20): the Host check
// (Options.Hosts, host.go), then the Origin policy (Options.Origins,
// origin.go) and CORS. It runs first on every request, before anything is
// served (JSON-RPC, SSE, WebSocket, the documents, the health endpoints,
// Mounts, Routes such as /mcp):
//
//   - a Host the policy refuses gets 403 "invalid host specified";
//   - a request without an Origin header (not from a browser) goes on
//     untouched;
//   - an Origin the policy refuses gets 403 "origin not allowed": nothing
//     runs, a "simple" text/plain POST (which a browser sends without a
//     preflight) neither, and no CORS header lets the page read the 403;
//   - an allowed Origin's preflight (OPTIONS with
//     Access-Control-Request-Method) gets 204 and the CORS headers;
//   - an allowed Origin's request is served, and its response carries
//     Access-Control-Allow-Origin (the origin), Vary: Origin and
//     Access-Control-Expose-Headers, whatever its status: the errors (400,
//     401, 403, 404, 405, 413, 429, 503), 202, 204, and SSE streams, whose
//     headers fasthttp writes after the handler returns.
//
// Access-Control-Allow-Credentials is never sent: a bearer token travels
// in Authorization, which needs no credentials mode, and cookies are not
// how jetrpc authenticates. On fasthttp the headers go on after the
// handler (ctx.Error resets them), from the request's own Origin bytes:
// nothing is allocated, and the header names, canonical already, are not
// normalised again (SetCanonical).

import (
	"net/http"

	"github.com/jetrpc/jetrpc/internal/bytesconv"
	"github.com/valyala/fasthttp"
)

// The CORS headers' values.
const (
	corsAllowMethods = "GET, POST, DELETE, OPTIONS"
	corsAllowHeaders = "Content-Type, Authorization, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, " +
		"traceparent, tracestate"
	corsExposeHeaders = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After"
	corsMaxAge        = "600" // seconds a browser may reuse a preflight's answer
	originRefused     = "origin not allowed"
)

var (
	hdrOrigin        = []byte(fasthttp.HeaderOrigin)
	hdrVary          = []byte(fasthttp.HeaderVary)
	hdrACRMethod     = []byte(fasthttp.HeaderAccessControlRequestMethod)
	hdrACAOrigin     = []byte(fasthttp.HeaderAccessControlAllowOrigin)
	hdrACAMethods    = []byte(fasthttp.HeaderAccessControlAllowMethods)
	hdrACAHeaders    = []byte(fasthttp.HeaderAccessControlAllowHeaders)
	hdrACEHeaders    = []byte(fasthttp.HeaderAccessControlExposeHeaders)
	hdrACMaxAge      = []byte(fasthttp.HeaderAccessControlMaxAge)
	valOrigin        = []byte(fasthttp.HeaderOrigin)
	valAllowMethods  = []byte(corsAllowMethods)
	valAllowHeaders  = []byte(corsAllowHeaders)
	valExposeHeaders = []byte(corsExposeHeaders)
	valMaxAge        = []byte(corsMaxAge)
)

// guard is the browser layer: Options.Hosts and Options.Origins.
type guard struct {
	hosts   *HostPolicy   // nil: no Host check
	origins *OriginPolicy // nil: the request's own host only (OriginPolicy)
	obs     Observer      // sees ConnHostRefused and ConnOriginRefused
}

func (o *Options) guard() guard {
	return guard{hosts: o.or().Hosts, origins: o.or().Origins, obs: o.observer()}
}

// refused reports a refusal to the observer.
func (g *guard) refused(ev ConnEvent) {
	if g.obs != nil {
		g.obs.ObserveConn(HTTP, ev)
	}
}

// admitFast checks a fasthttp request before it is served; ok false means
// it has been answered (refused, or a preflight). After ok, the caller
// runs finishFast with origin once the response is ready.
func (g *guard) admitFast(ctx *fasthttp.RequestCtx) (origin []byte, ok bool) {
	if g.hosts != nil && !g.hosts.Allow(bytesconv.B2S(ctx.Host())) {
		g.refused(ConnHostRefused)
		ctx.Error(hostRefused, fasthttp.StatusForbidden)
		return nil, false
	}
	origin = ctx.Request.Header.PeekBytes(hdrOrigin)
	if len(origin) == 0 {
		return nil, true
	}
	if !g.origins.Allow(bytesconv.B2S(origin), bytesconv.B2S(ctx.Host())) {
		g.refused(ConnOriginRefused)
		ctx.Error(originRefused, fasthttp.StatusForbidden)
		return nil, false
	}
	if ctx.IsOptions() && len(ctx.Request.Header.PeekBytes(hdrACRMethod)) > 0 {
		ctx.SetStatusCode(fasthttp.StatusNoContent)
		h := &ctx.Response.Header
		setCORS(h, origin)
		h.SetCanonical(hdrACAMethods, valAllowMethods)
		h.SetCanonical(hdrACAHeaders, valAllowHeaders)
		h.SetCanonical(hdrACMaxAge, valMaxAge)
		return nil, false
	}
	return origin, true
}

// finishFast puts the CORS headers on the response of a request admitFast
// let through with an Origin (the request's bytes, valid until it ends).
func (g *guard) finishFast(ctx *fasthttp.RequestCtx, origin []byte) {
	if len(origin) > 0 {
		setCORS(&ctx.Response.Header, origin)
	}
}

// finishRefused is finishFast for a request answered before admitFast could
// run (a body fasthttp refused to read: 413), whose Origin is checked here.
func (g *guard) finishRefused(ctx *fasthttp.RequestCtx) {
	origin := ctx.Request.Header.PeekBytes(hdrOrigin)
	if len(origin) > 0 && g.hosts.Allow(bytesconv.B2S(ctx.Host())) &&
		g.origins.Allow(bytesconv.B2S(origin), bytesconv.B2S(ctx.Host())) {
		setCORS(&ctx.Response.Header, origin)
	}
}

func setCORS(h *fasthttp.ResponseHeader, origin []byte) {
	h.SetCanonical(hdrACAOrigin, origin)
	h.SetCanonical(hdrVary, valOrigin)
	h.SetCanonical(hdrACEHeaders, valExposeHeaders)
}

// admitStd is admitFast for net/http. The CORS headers of an allowed
// origin are set at once: net/http's errors keep them.
func (g *guard) admitStd(w http.ResponseWriter, r *http.Request) bool {
	if g.hosts != nil && !g.hosts.Allow(r.Host) {
		g.refused(ConnHostRefused)
		http.Error(w, hostRefused, http.StatusForbidden)
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if !g.origins.Allow(origin, r.Host) {
		g.refused(ConnOriginRefused)
		http.Error(w, originRefused, http.StatusForbidden)
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", corsAllowMethods)
		h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
		h.Set("Access-Control-Max-Age", corsMaxAge)
		w.WriteHeader(http.StatusNoContent)
		return false
	}
	return true
}
