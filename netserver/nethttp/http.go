package nethttp

// NOTE: the HTTP transport is split in four files. http.go is the fasthttp
// server and its request handler; httpstd.go the net/http adapter with the
// same behaviour; httpconn.go the connection wrapper that tracks open
// connections and drains a refused body before closing; httpopts.go how
// netserver.Options apply to fasthttp. limits.go is what both take from
// netserver (a seam.Host); ws.go, ws_conn.go and sse.go run WebSocket and
// SSE on netserver's core; tls.go is HTTPS, http_guard.go the guard.

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/internal/seam"
	"github.com/valyala/fasthttp"
)

// HTTPServer serves JSON-RPC 2.0 over HTTP/1.1 with fasthttp. A POST to any
// path carries one message or one batch:
//
//   - 200 with the response (Content-Type: application/json), also when the
//     response is a JSON-RPC error;
//   - 204 with an empty body when no response is due (notifications);
//   - 413 when the body is over netserver.Options.MaxMessage, also once
//     inflated (a body with Content-Encoding gzip or deflate; another
//     coding gets 415, a body that does not decode 400);
//   - a response of at least netserver.Options.CompressMin bytes is
//     compressed, gzip or deflate, when the request's Accept-Encoding
//     allows (see compress.go);
//   - 405 with "Allow: POST" for any other method, the body naming what
//     serves that path (see Hint);
//   - a POST whose Accept header includes text/event-stream gets 200 with
//     a stream of Server-Sent Events: each response (each batch member's on
//     its own, as soon as it is ready) and each notification the handlers
//     send to their Peer during the call is one "data:" event; the stream
//     ends when every call is answered (204 when none is due);
//   - GET /ws with the WebSocket upgrade headers upgrades the connection
//     (see ws.go for the endpoint, its bounds and its policy when full);
//   - GET or HEAD of the health endpoints (netserver.Options.HealthPath, ReadyPath;
//     /healthz and /readyz by default) answers the probe (see netserver.Health).
//
// Each request runs on its own fasthttp worker goroutine, so a slow call
// blocks nobody else. Handler contexts derive from the engine's context and
// are cancelled when Shutdown gives up waiting or the engine is closed.
type HTTPServer struct {
	e      *dispatch.Engine
	srv    fasthttp.Server
	max    int
	ctx    context.Context // parent of the handlers' contexts
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	lns    []net.Listener
	conns  httpConns
	lim    limits
	mounts mounts        // netserver.Options.Mounts (mounts.go)
	ping   time.Duration // WebSocket keep-alive
	health healthPaths
	docs   documents                          // netserver.Options.Documents (documents.go)
	z      coding                             // content coding (compress.go)
	tls    *tls.Config                        // netserver.Options.TLS; nil: none (tls.go)
	routes map[string]fasthttp.RequestHandler // netserver.Options.Routes
	hints  map[string]string                  // Hint: what a 405 says about a path
}

// New returns an HTTPServer for e configured by opts (nil means the
// defaults). Of netserver.Options it uses:
//
//   - the limits MaxMessage and MaxConns (concurrent connections);
//   - the timeouts ReadTimeout, IdleTimeout and WriteTimeout, and
//     MaxInFlight and MaxPending for WebSocket connections;
//   - who is served: Guard (authentication, Origin, Host, per-client
//     limits) and TLS;
//   - Health, HealthPath, ReadyPath and DrainDelay;
//   - what else it serves: Routes (endpoints of their own, such as MCP's),
//     Mounts (GET handlers under a prefix, such as the web console) and
//     Documents (GET of JSON documents, such as /openrpc.json);
//   - ConnContext, Observer and Logger.
//
// Framing is for the stream transports only.
func New(e *dispatch.Engine, opts *netserver.Options) *HTTPServer {
	s := &HTTPServer{e: e, lim: newLimits(e, opts), ping: wsPingEvery}
	o := or(opts)
	s.max, s.tls = s.lim.set.MaxMessage, s.lim.set.TLS
	s.health, s.docs, s.routes = newHealthPaths(&o, s.lim.host), o.Documents, o.Routes
	if idle := s.lim.idleTimeout; idle > 0 && idle/2 < s.ping {
		s.ping = idle / 2
	}
	base := e.Context()
	if set := s.lim.methods[netserver.HTTP]; set != nil { // for rpc.discover (dispatch.MethodSetOf)
		base = dispatch.WithMethodSet(base, set)
	}
	s.ctx, s.cancel = context.WithCancel(base)
	configureFastHTTP(&s.srv, s.lim.set)
	s.srv.Handler = s.Handler
	s.srv.ErrorHandler = s.errorHandler
	s.srv.ExpectHandler = s.expect
	s.mounts = newMounts(o.Mounts)
	s.z.min = compressMin(opts)
	return s
}

// Serve accepts connections on ln and serves them until Shutdown, after
// which it returns ErrServerClosed. It closes ln when it returns.
func (s *HTTPServer) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return netserver.ErrServerClosed
	}
	s.lns = append(s.lns, ln)
	s.mu.Unlock()

	err := s.srv.Serve(httpListener{Listener: seam.ListenTLS(ln, s.tls), conns: &s.conns, s: s})
	ln.Close()
	if s.isClosed() {
		return netserver.ErrServerClosed
	}
	return err
}

// Shutdown stops the server gracefully: it drains the Health (the
// readiness endpoint answers 503) and goes on serving for
// netserver.Options.DrainDelay; then it closes the listeners and the idle
// connections, and waits for the requests in flight to be answered (their
// responses say "Connection: close"). If ctx ends first, it cancels the
// handlers' contexts, closes every connection and returns ctx.Err(); the
// remaining goroutines exit as their handlers return.
func (s *HTTPServer) Shutdown(ctx context.Context) error {
	s.lim.host.WaitDrain(ctx)
	s.mu.Lock()
	s.closed = true
	lns := s.lns
	s.lns = nil
	s.mu.Unlock()
	s.lim.host.CloseConns() // no WebSocket connection registers from now on

	err := s.srv.ShutdownWithContext(ctx)
	for _, ln := range lns { // a Serve that had not reached fasthttp yet
		ln.Close()
	}
	// fasthttp does not track hijacked connections: WebSocket ones end
	// here, aborted at once if ctx has ended.
	if werr := s.lim.host.ShutdownConns(ctx); err == nil || errors.Is(err, net.ErrClosed) {
		err = werr
	}
	s.cancel()
	switch {
	case errors.Is(err, net.ErrClosed):
		err = nil
	case err != nil:
		s.conns.closeAll()
	}
	return err
}

func (s *HTTPServer) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Handler serves one HTTP request. It can be used in a fasthttp server of
// one's own; that server's MaxRequestBodySize bounds what fasthttp reads, and
// Handler answers 413 to a body over netserver.Options.MaxMessage.
func (s *HTTPServer) Handler(ctx *fasthttp.RequestCtx) {
	origin, ok := s.browser(ctx) // Host, Origin, CORS preflight (http_guard.go)
	if !ok {
		return
	}
	defer guard.FinishBrowser(ctx, origin)
	if h := s.routes[string(ctx.Path())]; h != nil { // no allocation: a map index by string(bytes)
		if s.admitRoute(ctx) { // Auth, RateLimit (http_guard.go)
			s.z.offerStream(ctx) // compress.go
			h(ctx)
			s.z.compressRoute(ctx)
		}
		return
	}
	if !ctx.IsPost() {
		s.serveNotPost(ctx)
		return
	}
	body := ctx.PostBody()
	if len(body) > s.max {
		s.lim.observe(netserver.HTTP, netserver.ConnTooLarge)
		tooLarge(ctx)
		return
	}
	if len(ctx.Request.Header.ContentEncoding()) > 0 { // compress.go
		in := s.z.bufs.Get()
		defer s.z.bufs.Put(in)
		var status int
		if body, status = s.z.inflate(ctx, body, in, s.max); body == nil {
			if status == fasthttp.StatusRequestEntityTooLarge {
				s.lim.observe(netserver.HTTP, netserver.ConnTooLarge)
			}
			return
		}
	}
	if !s.admitPost(ctx, body) { // Auth, RateLimit (http_guard.go)
		return
	}
	if !s.lim.host.Ready() { // draining: let keep-alive clients go elsewhere
		ctx.SetConnectionClose()
	}
	if hasEventStream(ctx.Request.Header.Peek(fasthttp.HeaderAccept)) {
		s.serveSSE(ctx, body)
		return
	}
	// Append the response straight into the response's own pooled body
	// buffer: borrow its bytes, let the engine append, hand them back.
	out := ctx.Response.SwapBody(nil)[:0]
	st := streamOf(ctx) // streamed results (http_stream.go)
	st.arm()
	if set := s.lim.methods[netserver.HTTP]; set != nil { // netserver.Options.Methods
		out = set.ProcessContext(s.requestContext(ctx, netserver.HTTP, false), out, body)
	} else {
		out = s.e.ProcessContext(s.requestContext(ctx, netserver.HTTP, false), out, body)
	}
	ctx.Response.SwapBody(out)
	if serveStreamed(ctx, st, &s.z) {
		return
	}
	if len(out) == 0 {
		ctx.SetStatusCode(fasthttp.StatusNoContent)
		return
	}
	ctx.Response.Header.SetContentTypeBytes(jsonContentType)
	s.z.compressBody(ctx)
}

// serveNotPost answers every request whose method is not POST.
func (s *HTTPServer) serveNotPost(ctx *fasthttp.RequestCtx) {
	if isWS(ctx) {
		s.serveWS(ctx)
		return
	}
	if s.health.serveFast(ctx) || s.docs.has(ctx) && !s.admitGet(ctx) || s.docs.serveFast(ctx, &s.z) {
		return
	}
	if s.mounts.serveFast(ctx) {
		return
	}
	ctx.Error(s.notAllowed(ctx.Path()), fasthttp.StatusMethodNotAllowed)
	ctx.Response.Header.SetBytesV(fasthttp.HeaderAllow, allowPost) // after Error, which resets headers
}

// Hint sets what the 405 answer to a request for path (other than a POST,
// which is a JSON-RPC call on any path) says after "Method Not Allowed",
// when nothing on this server serves that path: where it is served
// instead, such as "serve /metrics with --admin ADDR". A path that ends in
// "/" covers the paths under it. Paths without a hint get a line on what
// this server does answer. Call Hint before Serve.
func (s *HTTPServer) Hint(path, text string) {
	if s.hints == nil {
		s.hints = map[string]string{}
	}
	s.hints[path] = text
}

// notAllowed is the body of a 405 for path: the status text, then its
// hint, or what this server answers.
func (s *HTTPServer) notAllowed(path []byte) string {
	hint, ok := s.hints[string(path)]
	for p, h := range s.hints {
		if !ok && strings.HasSuffix(p, "/") && bytes.HasPrefix(path, []byte(p)) {
			hint, ok = h, true
		}
	}
	if !ok {
		hint = "POST JSON-RPC 2.0 messages to any path of this server; GET /ws with the WebSocket upgrade headers for WebSocket"
	}
	return fasthttp.StatusMessage(fasthttp.StatusMethodNotAllowed) + ": " + hint + "\n"
}

// expect answers "Expect: 100-continue": a declared body over the limit is
// refused with 413 before the client sends it.
func (s *HTTPServer) expect(ctx *fasthttp.RequestCtx) int {
	if ctx.Request.Header.ContentLength() > s.max {
		lingerOnClose(ctx) // the client may send the body anyway
		s.lim.observe(netserver.HTTP, netserver.ConnTooLarge)
		return fasthttp.StatusRequestEntityTooLarge
	}
	return fasthttp.StatusContinue
}

// errorHandler answers a request fasthttp could not read. A body over the
// limit gets 413; the connection then drains what the client still sends
// before closing, so that the client can read the 413 (see httpConn).
func (s *HTTPServer) errorHandler(ctx *fasthttp.RequestCtx, err error) {
	defer s.lim.sec.FinishRefused(ctx) // CORS headers for an allowed origin
	if !errors.Is(err, fasthttp.ErrBodyTooLarge) {
		defaultErrorHandler(ctx, err)
		return
	}
	lingerOnClose(ctx)
	s.lim.observe(netserver.HTTP, netserver.ConnTooLarge)
	tooLarge(ctx)
}

// lingerOnClose makes the connection of ctx drain its input before closing.
func lingerOnClose(ctx *fasthttp.RequestCtx) {
	if c, ok := httpConnOf(ctx.Conn()); ok {
		c.lingerOnClose()
	}
}

func tooLarge(ctx *fasthttp.RequestCtx) {
	ctx.Error(fasthttp.StatusMessage(fasthttp.StatusRequestEntityTooLarge), fasthttp.StatusRequestEntityTooLarge)
}

// defaultErrorHandler mirrors fasthttp's answers to other reading errors.
func defaultErrorHandler(ctx *fasthttp.RequestCtx, err error) {
	var small *fasthttp.ErrSmallBuffer
	var ne net.Error
	switch {
	case errors.As(err, &small):
		ctx.Error("Too big request header", fasthttp.StatusRequestHeaderFieldsTooLarge)
	case errors.As(err, &ne) && ne.Timeout():
		ctx.Error("Request timeout", fasthttp.StatusRequestTimeout)
	default:
		ctx.Error("Error when parsing request", fasthttp.StatusBadRequest)
	}
}

var (
	jsonContentType = []byte("application/json")
	allowPost       = []byte(fasthttp.MethodPost)
)

// or returns the options, the zero value for nil.
func or(o *netserver.Options) netserver.Options {
	if o == nil {
		return netserver.Options{}
	}
	return *o
}
