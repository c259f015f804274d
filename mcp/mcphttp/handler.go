package mcphttp

// NOTE: the Streamable HTTP endpoint (handler.go: options, the handler,
// POST; call.go: a request's call and answer; get.go: GET and DELETE;
// session.go: sessions; adopt.go: the shared store; check.go: the Modern
// revision's checks; mcp/internal/sse: event streams; mcp/internal/httpx:
// header checks and error answers; mcp/internal/seam: what it asks of the
// mcp.Server). A POST is parsed once here (to route and check it), then
// run by the engine under an mcp call that carries the request's session
// and stream. A cheap request (every method
// but tools/call, resources/read and prompts/get, and Inline tools) runs
// on fasthttp's goroutine; the others on a worker, while fasthttp's
// goroutine waits for the first of: the response (answered as
// application/json) or a message sent before it (answered as an event
// stream, the response its last event).

import (
	"bufio"
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/engineconn"
	"github.com/jetrpc/jetrpc/internal/httpz/fasthttpz"
	"github.com/jetrpc/jetrpc/internal/pool"
	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/internal/httpx"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
	"github.com/jetrpc/jetrpc/mcp/internal/seam"
	"github.com/jetrpc/jetrpc/mcp/internal/sse"
	"github.com/jetrpc/jetrpc/streamstore"
	"github.com/valyala/fasthttp"
)

// Options configures an Handler. A nil *Options, and every
// zero field, means the default.
type Options struct {
	// Stateless turns sessions off: no Mcp-Session-Id is issued or
	// required, GET and DELETE answer 405, streams are not resumable and
	// the client cannot be called. Requests of the Modern revision are
	// always served this way, whatever Stateless says.
	Stateless bool
	// CheckOrigin decides whether a request's Origin header (when there is
	// one; none always passes) may use the endpoint, given the request's
	// Host; a refused one gets 403. Default: an origin whose host is
	// loopback (localhost, 127.0.0.0/8, [::1]), which keeps web pages of
	// other sites (DNS rebinding) out. netserver's origin policy plugs in
	// here.
	CheckOrigin func(origin, host []byte) bool
	// MaxSessions bounds the open sessions (default 10000). At the bound an
	// initialize ends the session unused the longest, if one is idle; else
	// it gets 503.
	MaxSessions int
	// SessionIdle ends a session that has had no request and no stream for
	// this long (default 10 minutes).
	SessionIdle time.Duration
	// EventStore keeps the events of resumable streams (default a
	// streamstore.Memory with its default bounds).
	EventStore streamstore.Store
	// SessionIDs mints and checks the session ids (default: a random
	// instance tag and key).
	SessionIDs *SessionIDs
	// Retry is the reconnection delay the event streams' priming event
	// tells the client (default 1 s).
	Retry time.Duration
	// KeepAlive is how long an event stream may be silent before a comment
	// line is written (default 15 s).
	KeepAlive time.Duration
	// WriteTimeout bounds each write of an event stream (default 30 s): a
	// client that stops reading loses its connection.
	WriteTimeout time.Duration
	// MaxPending bounds the bytes one event stream holds for a client that
	// reads slowly (default 4 MiB); past it, its connection is dropped (the
	// client resumes from the EventStore).
	MaxPending int
	// MaxWorkers bounds the goroutines that run the calls that may block
	// (default 16384).
	MaxWorkers int
	// Logger receives what goes wrong (default the Server's).
	Logger *slog.Logger
	// Identity returns who made a request (nil: nobody known); its
	// handlers read it with auth.IdentityOf, and mcp.Options.Access
	// judges it. For the endpoint mounted in netserver.Options.Routes,
	// whose guard authenticated the request, it is
	// nethttp.RequestIdentity. Nil: the requests have no identity.
	Identity func(ctx *fasthttp.RequestCtx) *auth.Identity
	// Forbidden appends to dst the WWW-Authenticate value of the 403 a
	// request gets when mcp.Options.Access refuses the tool, resource or
	// prompt it names to id; needed is what Access says it lacks. An OAuth
	// resource server asks for the scopes the token has plus those needed,
	// so that a client can step up (oauth.Resource.AppendForbidden with
	// oauth.StepUpScope). Default: `Bearer error="insufficient_scope",
	// scope="NEEDED"`.
	Forbidden func(dst []byte, id *auth.Identity, needed string) []byte
}

// Handler is the Streamable HTTP endpoint of an mcp.Server, for all the
// protocol revisions at once:
//
//   - POST carries one JSON-RPC message; a JSON array is 400. A
//     notification or a response gets 202 and no body. A request gets its
//     response as application/json, or, once its handler sends anything
//     before its result (progress, a log message, a request to the
//     client), as an event stream (text/event-stream, one "data:" line
//     per message, the response last; then the stream ends).
//   - Sessions (initialize-based revisions): initialize issues an
//     Mcp-Session-Id; every other request needs it (none: 400; unknown,
//     ended or expired: 404). DELETE ends one. Idle sessions expire
//     (SessionIdle) and their number is bounded (MaxSessions).
//   - GET (with a session) opens its standalone event stream, for what
//     the server sends outside any request (one at a time: 409 for a
//     second).
//   - Event ids encode their stream (STREAM-SEQ); sessions of 2025-11-25
//     get a priming event (an id and empty data) with retry: at the start
//     of each stream. A client that lost a stream's connection resumes it
//     with GET and Last-Event-ID: the events it missed (from the
//     EventStore), then the live ones. An id of another session or stream
//     is 400; a stream with nothing more to send is 204.
//   - A lost connection does not cancel the request of a session (the
//     client can resume); notifications/cancelled does. For stateless and
//     Modern requests, whose streams cannot be resumed, it does.
//   - MCP-Protocol-Version must name a revision spoken here (400). One of
//     the Modern revision (or _meta naming it) is served without a session
//     and checked as 2026-07-28 asks (the header and _meta agree,
//     Mcp-Method and Mcp-Name match the body: else 400 with
//     HeaderMismatch; an unknown method, or one that revision removed
//     (initialize, ping, logging/setLevel, resources/subscribe and
//     unsubscribe), 404). Its subscriptions/listen is answered with an
//     event stream that stays open (see mcp.Server.ToolsChanged).
//   - A request with a foreign Origin gets 403 (CheckOrigin).
//
// Mount it with netserver.Options.Routes (jetrpc serve --mcp does, at
// /mcp), or call ServeFastHTTP from a fasthttp server of your own.
type Handler struct {
	core         seam.Core
	e            *dispatch.Engine
	log          *slog.Logger
	stateless    bool
	origin       func(origin, host []byte) bool
	store        streamstore.Store
	ids          *SessionIDs
	retry        time.Duration
	keepAlive    time.Duration
	writeTimeout time.Duration
	maxPending   int
	maxSessions  int
	idle         time.Duration
	identity     func(ctx *fasthttp.RequestCtx) *auth.Identity
	forbidden    func(dst []byte, id *auth.Identity, needed string) []byte

	ctx    context.Context // the parent of the calls' contexts
	cancel context.CancelFunc
	done   chan struct{}    // closed by Shutdown: streams end
	anon   *engineconn.Conn // the connection of stateless requests (one-way)

	workers   *pool.Workers
	streamIDs atomic.Uint64
	running   sync.WaitGroup // requests being served

	sessions sync.Map // id -> *session
	count    atomic.Int32
	mu       sync.Mutex // janitor
	janitor  bool
	closed   bool

	parsers sync.Pool  // *decode.Parser
	calls   sync.Pool  // *call
	events  sse.Config // what the event streams share
}

// New returns the Streamable HTTP endpoint of s (nil opts: the
// defaults). Call Shutdown when done.
func New(s *mcp.Server, opts *Options) *Handler {
	if opts == nil {
		opts = &Options{}
	}
	k := seam.CoreOf(s)
	h := &Handler{core: k, e: k.Engine(), log: opts.Logger, stateless: opts.Stateless, origin: opts.CheckOrigin,
		store: opts.EventStore, ids: opts.SessionIDs, retry: opts.Retry, keepAlive: opts.KeepAlive,
		writeTimeout: opts.WriteTimeout, maxPending: opts.MaxPending, maxSessions: opts.MaxSessions,
		idle: opts.SessionIdle, identity: opts.Identity, forbidden: opts.Forbidden, done: make(chan struct{})}
	if h.log == nil {
		h.log = k.Logger()
	}
	if h.origin == nil {
		h.origin = httpx.LoopbackOrigin
	}
	if h.store == nil {
		h.store = streamstore.NewMemory(nil)
	}
	if h.ids == nil {
		h.ids, _ = NewSessionIDs("", nil)
	}
	h.retry = positiveDur(h.retry, time.Second)
	h.keepAlive = positiveDur(h.keepAlive, 15*time.Second)
	h.writeTimeout = positiveDur(h.writeTimeout, 30*time.Second)
	h.idle = positiveDur(h.idle, 10*time.Minute)
	if h.maxPending <= 0 {
		h.maxPending = 4 << 20
	}
	if h.maxSessions <= 0 {
		h.maxSessions = 10000
	}
	h.events = sse.Config{Ctx: nil, Store: h.store, Log: h.log, Retry: h.retry, KeepAlive: h.keepAlive,
		WriteTimeout: h.writeTimeout, MaxPending: h.maxPending, Done: h.done}
	var seed [8]byte
	httpx.RandRead(seed[:])
	h.streamIDs.Store(uint64(seed[0])<<56 | uint64(seed[1])<<48 | uint64(seed[2])<<40 | uint64(seed[3])<<32 |
		uint64(seed[4])<<24 | uint64(seed[5])<<16 | uint64(seed[6])<<8 | uint64(seed[7]))
	h.ctx, h.cancel = context.WithCancel(k.BaseContext())
	h.events.Ctx = h.ctx
	h.anon = engineconn.NewConn(h.e, h.ctx, engineconn.SendFunc(h.sendAnon), true)
	h.workers = pool.NewWorkers(&pool.WorkersOptions{Max: opts.MaxWorkers, IdleTimeout: 10 * time.Second})
	h.parsers.New = func() any { return new(decode.Parser) }
	h.calls.New = func() any { return new(call) }
	k.Freeze()
	return h
}

func positiveDur(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Shutdown stops the endpoint: new requests get 503, event streams end
// (their clients may resume on another replica), and it waits for the
// requests in flight until ctx ends, then cancels them. Sessions end.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	h.mu.Unlock()
	h.core.EndListeners(ctx, h) // subscriptions/listen streams end with their result
	close(h.done)
	waited := make(chan struct{})
	go func() { h.running.Wait(); close(waited) }()
	var err error
	select {
	case <-waited:
	case <-ctx.Done():
		err = ctx.Err()
	}
	h.cancel()
	h.sessions.Range(func(_, v any) bool {
		h.leaveSession(v.(*session)) // a shared store keeps it for another replica
		return true
	})
	h.anon.Close()
	h.workers.Stop()
	return err
}

func (h *Handler) isClosed() bool {
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

// Sessions returns the number of open sessions.
func (h *Handler) Sessions() int { return int(h.count.Load()) }

// ServeFastHTTP serves one request to the endpoint.
func (h *Handler) ServeFastHTTP(ctx *fasthttp.RequestCtx) {
	if origin := ctx.Request.Header.Peek("Origin"); len(origin) > 0 && !h.origin(origin, ctx.Host()) {
		httpx.Error(ctx, fasthttp.StatusForbidden, nil, -32600, "Forbidden: origin not allowed")
		return
	}
	if h.isClosed() {
		ctx.SetConnectionClose()
		httpx.Error(ctx, fasthttp.StatusServiceUnavailable, nil, h.e.ConditionCode(encode.CodeShuttingDown),
			"Server shutting down")
		return
	}
	h.running.Add(1)
	defer h.running.Done()
	switch {
	case ctx.IsPost():
		h.post(ctx)
	case ctx.IsGet():
		h.get(ctx)
	case ctx.IsDelete():
		h.delete(ctx)
	default:
		h.notAllowed(ctx)
	}
}

func (h *Handler) notAllowed(ctx *fasthttp.RequestCtx) {
	allow := "GET, POST, DELETE"
	if h.stateless {
		allow = "POST"
	}
	httpx.Error(ctx, fasthttp.StatusMethodNotAllowed, nil, -32600, "Method not allowed")
	ctx.Response.Header.Set(fasthttp.HeaderAllow, allow)
}

// post serves a POST: one message.
func (h *Handler) post(ctx *fasthttp.RequestCtx) {
	if !httpx.AcceptsBoth(ctx.Request.Header.Peek(fasthttp.HeaderAccept)) {
		httpx.Error(ctx, fasthttp.StatusNotAcceptable, nil, -32600,
			"Not Acceptable: the client must accept both application/json and text/event-stream")
		return
	}
	if ct := ctx.Request.Header.ContentType(); len(ct) > 0 && !httpx.IsJSONType(ct) {
		httpx.Error(ctx, fasthttp.StatusUnsupportedMediaType, nil, -32600,
			"Unsupported Media Type: the body must be application/json")
		return
	}
	body := ctx.PostBody()
	p := h.parsers.Get().(*decode.Parser)
	defer func() { p.Reset(); h.parsers.Put(p) }()
	m, err := p.Parse(body)
	switch {
	case err != nil:
		httpx.Error(ctx, fasthttp.StatusBadRequest, nil, -32700, "Parse error")
		return
	case m.Kind == decode.Batch:
		httpx.Error(ctx, fasthttp.StatusBadRequest, nil, -32600,
			"Invalid Request: one JSON-RPC message per POST (no batch)")
		return
	case m.Kind == decode.Invalid:
		httpx.Error(ctx, fasthttp.StatusBadRequest, nil, -32600, "Invalid Request: "+m.Reason.String())
		return
	}
	var rp proto.Params
	rp.Parse(m.Params)
	c := h.getCall()
	if !h.route(ctx, c, m, &rp) {
		h.putCall(c)
		return
	}
	if !h.authorize(ctx, c, m, &rp) { // access.go
		h.finishRequest(c)
		h.putCall(c)
		return
	}
	if m.Kind != decode.Call { // a notification, or a response to the client's call
		out := h.e.ProcessContext(c.c, nil, body)
		_ = out // none: no answer is due
		h.finishRequest(c)
		h.putCall(c)
		ctx.SetStatusCode(fasthttp.StatusAccepted)
		return
	}
	h.serveCall(ctx, c, m, &rp, body)
}

// route decides how the message is served: its revision, its session. It
// answers the errors itself and then returns false.
func (h *Handler) route(ctx *fasthttp.RequestCtx, c *call, m *decode.Message, rp *proto.Params) bool {
	hv := ctx.Request.Header.Peek("Mcp-Protocol-Version")
	if len(hv) > 0 && !proto.IsSupported(hv) && !rp.HasVersion { // with _meta's, routeModern compares them first
		httpx.RPCError(ctx, fasthttp.StatusBadRequest, m.ID, h.core.UnsupportedVersion(hv))
		return false
	}
	if string(hv) == mcp.Modern || rp.HasVersion {
		return h.routeModern(ctx, c, m, rp, hv)
	}
	if m.Kind == decode.Call && string(m.Method) == "initialize" {
		c.version = proto.Negotiate(rp.ProtoVer)
		if !h.stateless {
			sess, ok := h.openSession(ctx)
			if !ok {
				return false
			}
			h.own(ctx, sess) // access.go
			c.sess, c.parent = sess, sess.conn.Context()
			c.opened = true
			sess.active.Add(1)
		}
		return h.ready(c)
	}
	if h.stateless {
		c.version = mcp.Version20250326
		if len(hv) > 0 {
			c.version = string(hv)
		}
		return h.ready(c)
	}
	sid := ctx.Request.Header.Peek("Mcp-Session-Id")
	if len(sid) == 0 {
		httpx.Error(ctx, fasthttp.StatusBadRequest, nil, -32600, "Bad Request: Mcp-Session-Id header is required")
		return false
	}
	sess := h.lookupOrAdopt(sid)
	if sess == nil || !h.owns(ctx, sess) { // another identity's: as if it did not exist (access.go)
		httpx.Error(ctx, fasthttp.StatusNotFound, nil, -32600, "Session not found")
		return false
	}
	sess.active.Add(1) // busy until finishRequest, which touches it: it cannot expire meanwhile
	c.sess, c.parent = sess, sess.conn.Context()
	c.version = sess.core.VersionOr(mcp.Version20250326)
	return h.ready(c)
}

// ready gives a stateless call its context, and the call what route
// decided.
func (h *Handler) ready(c *call) bool {
	if c.parent == nil {
		c.parent = h.anon.Context()
	}
	var core seam.Session // nil, not a nil *session: stateless
	if c.sess != nil {
		core = c.sess.core
	}
	c.c.Route(core, c.parent, c.version, c.modern)
	return true
}

// finishRequest ends the request's hold on its session.
func (h *Handler) finishRequest(c *call) {
	if c.sess != nil {
		c.sess.touch()
		c.sess.active.Add(-1)
	}
}

// blocking reports whether the request may block, so runs on a worker.
func (h *Handler) blocking(m *decode.Message, rp *proto.Params) bool {
	var tool []byte
	if string(m.Method) == "tools/call" {
		tool = proto.Text(nil, rp.Name, rp.NameEsc)
	}
	return h.core.Blocking(m.Method, tool)
}

// serveCall runs a request and answers it.
func (h *Handler) serveCall(ctx *fasthttp.RequestCtx, c *call, m *decode.Message, rp *proto.Params, body []byte) {
	c.resumable = c.sess != nil && !c.modern
	c.prime = c.resumable && proto.AtLeast(c.version, mcp.Version20251125)
	if !h.blocking(m, rp) {
		c.inline = true
		out := ctx.Response.SwapBody(nil)[:0]
		out = h.e.ProcessContext(c.c, out, body)
		if c.opened { // initialize: keep its session if it succeeded
			h.settleSession(ctx, c, out)
		}
		h.finishRequest(c)
		h.answer(ctx, c, out)
		h.putCall(c)
		return
	}
	c.body = append(c.body[:0], body...)
	if c.sig == nil {
		c.sig = make(chan struct{}, 1)
	}
	c.refs.Store(2)
	if !h.workers.Submit(c) {
		go c.Run()
	}
	var mode uint8
	var st *sse.Stream
	for mode == modeUndecided {
		<-c.sig
		c.mu.Lock()
		mode, st = c.mode, c.st
		c.mu.Unlock()
	}
	switch mode {
	case modeJSON:
		out := append(ctx.Response.SwapBody(nil)[:0], c.out...)
		h.answer(ctx, c, out)
	case modeCancelled:
		ctx.Response.Header.SetContentType("text/event-stream")
		ctx.Response.Header.Set(fasthttp.HeaderCacheControl, "no-cache")
	default:
		h.answerStream(ctx, c, st)
	}
	c.release()
}

// answer writes the response of a request that ran on fasthttp's
// goroutine (or whose JSON answer is out): JSON, or the stream its
// handler started.
func (h *Handler) answer(ctx *fasthttp.RequestCtx, c *call, out []byte) {
	c.mu.Lock()
	st := c.st
	c.mu.Unlock()
	if st == nil {
		ctx.Response.SwapBody(out)
		ctx.Response.Header.SetContentType("application/json")
		if c.status != 0 {
			ctx.SetStatusCode(c.status)
		}
		return
	}
	ctx.Response.SwapBody(out[:0])
	if len(out) > 0 {
		_ = st.Send(out, true)
	}
	h.answerStream(ctx, c, st)
}

// answerStream answers with the request's event stream.
func (h *Handler) answerStream(ctx *fasthttp.RequestCtx, c *call, st *sse.Stream) {
	sseHeaders(ctx)
	gen := c.gen
	nc := ctx.Conn()
	fasthttpz.SetStream(ctx, func(w *bufio.Writer) { st.Serve(w, nc, gen) })
}

func sseHeaders(ctx *fasthttp.RequestCtx) {
	ctx.Response.Header.SetContentType("text/event-stream")
	ctx.Response.Header.Set(fasthttp.HeaderCacheControl, "no-cache")
	ctx.Response.Header.Set("X-Accel-Buffering", "no")
}
