package mcphttp

import (
	"bufio"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
	"github.com/jetrpc/jetrpc/internal/httpz/fasthttpz"
	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/internal/httpx"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
	"github.com/jetrpc/jetrpc/mcp/internal/sse"
	"github.com/jetrpc/jetrpc/streamstore"
	"github.com/valyala/fasthttp"
)

// sessionFor returns the session a GET or DELETE names, answering the
// errors itself (nil then).
func (h *Handler) sessionFor(ctx *fasthttp.RequestCtx) *session {
	if h.stateless || string(ctx.Request.Header.Peek("Mcp-Protocol-Version")) == mcp.Modern {
		h.notAllowed(ctx) // no sessions, no standalone stream
		return nil
	}
	if hv := ctx.Request.Header.Peek("Mcp-Protocol-Version"); len(hv) > 0 && !proto.IsSupported(hv) {
		httpx.RPCError(ctx, fasthttp.StatusBadRequest, nil, h.core.UnsupportedVersion(hv))
		return nil
	}
	sid := ctx.Request.Header.Peek("Mcp-Session-Id")
	if len(sid) == 0 {
		httpx.Error(ctx, fasthttp.StatusBadRequest, nil, -32600, "Bad Request: Mcp-Session-Id header is required")
		return nil
	}
	sess := h.lookupOrAdopt(sid)
	if sess == nil || !h.owns(ctx, sess) { // another identity's: as if it did not exist (access.go)
		httpx.Error(ctx, fasthttp.StatusNotFound, nil, -32600, "Session not found")
		return nil
	}
	return sess
}

// get opens the session's standalone stream, or resumes a stream with
// Last-Event-ID.
func (h *Handler) get(ctx *fasthttp.RequestCtx) {
	if !httpx.HasEventStream(ctx.Request.Header.Peek(fasthttp.HeaderAccept)) {
		httpx.Error(ctx, fasthttp.StatusNotAcceptable, nil, -32600, "Not Acceptable: the client must accept text/event-stream")
		return
	}
	sess := h.sessionFor(ctx)
	if sess == nil {
		return
	}
	sess.touch()
	if last := ctx.Request.Header.Peek("Last-Event-ID"); len(last) > 0 {
		h.resume(ctx, sess, last)
		return
	}
	st := sess.standaloneStream()
	busy := st.Busy()
	if busy {
		httpx.Error(ctx, fasthttp.StatusConflict, nil, -32600, "Conflict: the session's stream is already open")
		return
	}
	h.streamTo(ctx, st, st.Attach(st.Prime(), false, 0))
}

// resume serves a GET with Last-Event-ID: the stream it names, of this
// session only, from the event after it.
func (h *Handler) resume(ctx *fasthttp.RequestCtx, sess *session, last []byte) {
	id, seq, ok := sse.ParseEventID(last)
	if !ok {
		httpx.Error(ctx, fasthttp.StatusBadRequest, nil, -32600, "Bad Request: Last-Event-ID is not an event id of this server")
		return
	}
	if st := sess.stream(id); st != nil {
		gen := st.Attach(false, true, seq)
		if gen == 0 {
			ctx.SetStatusCode(fasthttp.StatusNoContent) // ended, nothing more: clients stop reconnecting
			return
		}
		h.streamTo(ctx, st, gen)
		return
	}
	// Not a stream of this process: one the store may still hold (another
	// replica's, or one this session no longer keeps).
	if h.resumeShared(ctx, sess, id, seq) {
		return
	}
	var events []byte
	found, err := h.store.Replay(h.ctx, streamstore.Key{Session: sess.id, Stream: id}, seq, func(ev streamstore.Event) error {
		events = append(events, ev.Data...)
		return nil
	})
	switch {
	case err != nil:
		h.log.Warn("mcp: event store replay failed", "err", err)
		httpx.Error(ctx, fasthttp.StatusServiceUnavailable, nil, -32603, "Event store unavailable")
	case !found:
		httpx.Error(ctx, fasthttp.StatusBadRequest, nil, -32600, "Bad Request: Last-Event-ID names no stream of this session")
	case len(events) == 0:
		ctx.SetStatusCode(fasthttp.StatusNoContent)
	default:
		sseHeaders(ctx)
		ctx.SetBody(events)
	}
}

// streamTo answers with the stream, on its connection of generation gen.
func (h *Handler) streamTo(ctx *fasthttp.RequestCtx, st *sse.Stream, gen uint64) {
	sseHeaders(ctx)
	nc := ctx.Conn()
	fasthttpz.SetStream(ctx, func(w *bufio.Writer) { st.Serve(w, nc, gen) })
}

// delete ends a session.
func (h *Handler) delete(ctx *fasthttp.RequestCtx) {
	if sess := h.sessionFor(ctx); sess != nil {
		h.endSession(sess)
		ctx.SetStatusCode(fasthttp.StatusOK)
	}
}

// lookup returns the open session of id, or nil.
func (h *Handler) lookup(id []byte) *session {
	v, ok := h.sessions.Load(bytesconv.B2S(id))
	if !ok {
		return nil
	}
	return v.(*session)
}

// openSession makes the session of an initialize, within MaxSessions.
func (h *Handler) openSession(ctx *fasthttp.RequestCtx) (*session, bool) {
	if int(h.count.Load()) >= h.maxSessions && !h.makeRoom() {
		httpx.Error(ctx, fasthttp.StatusServiceUnavailable, nil, -32603, "Too many sessions")
		return nil, false
	}
	return h.newSession(), true
}

// settleSession keeps initialize's session when its answer is a result
// (and names it in Mcp-Session-Id), else ends it.
func (h *Handler) settleSession(ctx *fasthttp.RequestCtx, c *call, out []byte) {
	var p decode.Parser
	m, err := p.Parse(out)
	if err != nil || m.Kind != decode.Result {
		c.sess.close()
		return
	}
	h.saveSession(c.sess, ctx.PostBody()) // before the client can name it elsewhere
	h.sessions.Store(c.sess.id, c.sess)
	h.count.Add(1)
	ctx.Response.Header.Set("Mcp-Session-Id", c.sess.id)
	h.startJanitor()
}

// endSession ends a session and forgets it.
func (h *Handler) endSession(s *session) {
	if s.close() {
		if _, ok := h.sessions.LoadAndDelete(s.id); ok {
			h.count.Add(-1)
		}
	}
}

// makeRoom ends expired sessions, then the one idle the longest; it
// reports whether there is room for one more.
func (h *Handler) makeRoom() bool {
	h.expire(time.Now())
	if int(h.count.Load()) < h.maxSessions {
		return true
	}
	var oldest *session
	h.sessions.Range(func(_, v any) bool {
		s := v.(*session)
		if s.active.Load() == 0 && (oldest == nil || s.lastUsed.Load() < oldest.lastUsed.Load()) {
			oldest = s
		}
		return true
	})
	if oldest == nil {
		return false
	}
	h.endSession(oldest)
	return true
}

// expire ends the sessions idle for SessionIdle.
func (h *Handler) expire(now time.Time) {
	before := now.Add(-h.idle).UnixNano()
	h.sessions.Range(func(_, v any) bool {
		if s := v.(*session); s.idle(before) {
			h.endSession(s)
		}
		return true
	})
}

// startJanitor starts the goroutine that expires idle sessions, once; it
// ends with Shutdown.
func (h *Handler) startJanitor() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.janitor || h.closed {
		return
	}
	h.janitor = true
	every := min(max(h.idle/4, 10*time.Millisecond), time.Minute)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case now := <-t.C:
				h.expire(now)
			case <-h.done:
				return
			}
		}
	}()
}
