package guard

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

// AdmitBrowser applies the Host check, the Origin policy and CORS to a
// fasthttp request before anything serves it. It answers a refused request
// (403, and says why) and a CORS preflight (204) itself, and then returns
// ok false. After ok, the caller runs FinishBrowser with origin once the
// response is ready.
func (g *Guard) AdmitBrowser(ctx *fasthttp.RequestCtx) (origin []byte, why Refusal, ok bool) {
	if g.hosts != nil && !g.hosts.Allow(bytesconv.B2S(ctx.Host())) {
		ctx.Error(hostRefused, fasthttp.StatusForbidden)
		return nil, HostRefused, false
	}
	origin = ctx.Request.Header.PeekBytes(hdrOrigin)
	if len(origin) == 0 {
		return nil, Allowed, true
	}
	if !g.origins.Allow(bytesconv.B2S(origin), bytesconv.B2S(ctx.Host())) {
		ctx.Error(originRefused, fasthttp.StatusForbidden)
		return nil, OriginRefused, false
	}
	if ctx.IsOptions() && len(ctx.Request.Header.PeekBytes(hdrACRMethod)) > 0 {
		ctx.SetStatusCode(fasthttp.StatusNoContent)
		h := &ctx.Response.Header
		setCORS(h, origin)
		h.SetCanonical(hdrACAMethods, valAllowMethods)
		h.SetCanonical(hdrACAHeaders, valAllowHeaders)
		h.SetCanonical(hdrACMaxAge, valMaxAge)
		return nil, Allowed, false
	}
	return origin, Allowed, true
}

// FinishBrowser puts the CORS headers on the response of a request
// AdmitBrowser let through with an Origin (the request's bytes, valid until
// it ends).
func FinishBrowser(ctx *fasthttp.RequestCtx, origin []byte) {
	if len(origin) > 0 {
		setCORS(&ctx.Response.Header, origin)
	}
}

// FinishRefused is FinishBrowser for a request answered before
// AdmitBrowser could run (a body fasthttp refused to read: 413), whose
// Origin is checked here.
func (g *Guard) FinishRefused(ctx *fasthttp.RequestCtx) {
	origin := ctx.Request.Header.PeekBytes(hdrOrigin)
	if len(origin) > 0 && g.hosts.Allow(bytesconv.B2S(ctx.Host())) &&
		g.origins.Allow(bytesconv.B2S(origin), bytesconv.B2S(ctx.Host())) {
		setCORS(&ctx.Response.Header, origin)
	}
}

func setCORS(h *fasthttp.ResponseHeader, origin []byte) {
	h.SetCanonical(hdrACAOrigin, origin)
	h.AddBytesKV(hdrVary, valOrigin) // added: a response may vary on Accept-Encoding too
	h.SetCanonical(hdrACEHeaders, valExposeHeaders)
}

// AdmitBrowserStd is AdmitBrowser for net/http. The CORS headers of an
// allowed origin are set at once: net/http's errors keep them.
func (g *Guard) AdmitBrowserStd(w http.ResponseWriter, r *http.Request) (Refusal, bool) {
	if g.hosts != nil && !g.hosts.Allow(r.Host) {
		http.Error(w, hostRefused, http.StatusForbidden)
		return HostRefused, false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return Allowed, true
	}
	if !g.origins.Allow(origin, r.Host) {
		http.Error(w, originRefused, http.StatusForbidden)
		return OriginRefused, false
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
		return Allowed, false
	}
	return Allowed, true
}
