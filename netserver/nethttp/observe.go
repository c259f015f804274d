package nethttp

import (
	"context"
	"net"
	"net/http"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/internal/seam"
	"github.com/valyala/fasthttp"
)

var (
	traceParentHeader = []byte("traceparent")
	traceStateHeader  = []byte("tracestate")
)

// requestContext is the context the messages of an HTTP request are
// processed under: its connection's (which carries its origin), or s.ctx
// when Handler is used in a server of one's own. A request that carries a
// traceparent header gets an origin of its own with the trace-context
// headers, valid during the request (clone them for longer: SSE).
func (s *HTTPServer) requestContext(ctx *fasthttp.RequestCtx, t netserver.Transport, clone bool) context.Context {
	parent, remote := s.ctx, net.Addr(nil)
	if c, ok := httpConnOf(ctx.Conn()); ok {
		parent, remote = c.ctx, c.RemoteAddr()
	}
	if a := s.identityContext(ctx); a != nil { // the guard's Auth (http_guard.go)
		parent = a
	}
	tp := ctx.Request.Header.PeekBytes(traceParentHeader)
	if len(tp) == 0 && t == netserver.HTTP {
		return parent
	}
	ts := ctx.Request.Header.PeekBytes(traceStateHeader)
	if clone {
		tp, ts = cloneBytes(tp), cloneBytes(ts)
	}
	if remote == nil {
		remote = ctx.RemoteAddr()
	}
	return dispatch.WithOrigin(parent, dispatch.Origin{
		Transport: t.String(), Remote: remote, TraceParent: tp, TraceState: ts,
	})
}

func cloneBytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// stdRequestContext is requestContext for the net/http adapter: the
// request's context with the request's origin (one allocation per request;
// net/http allocates more).
func stdRequestContext(r *http.Request, t netserver.Transport) context.Context {
	return dispatch.WithOrigin(seam.WithTLSState(r.Context(), r.TLS), dispatch.Origin{
		Transport:   t.String(),
		Remote:      stdAddr(r.RemoteAddr),
		TraceParent: headerBytes(r.Header, "Traceparent"),
		TraceState:  headerBytes(r.Header, "Tracestate"),
	})
}

func headerBytes(h http.Header, key string) []byte {
	if v := h[key]; len(v) > 0 && v[0] != "" {
		return []byte(v[0])
	}
	return nil
}

// stdAddr is a net/http request's RemoteAddr as a net.Addr.
type stdAddr string

func (a stdAddr) Network() string { return "tcp" }
func (a stdAddr) String() string  { return string(a) }
