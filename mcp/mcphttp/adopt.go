package mcphttp

// NOTE: sessions that outlive their replica. When the EventStore is shared
// by several replicas (it also implements streamstore.SessionStore),
// initialize saves the session's state there (its revision, the client's
// clientInfo and capabilities); a replica that gets a request, GET or
// DELETE naming a session it does not hold, under an id whose MAC its
// SessionIDs accept (replicas share the key), loads that state and adopts
// the session instead of answering 404. A resume (GET with Last-Event-ID)
// of a stream this process does not hold replays what the store has and,
// when the store is also a streamstore.Follower and the stream has not
// ended, follows the events another replica goes on appending, until the
// final one. A
// replica that shuts down leaves its sessions in the shared store (it only
// lets go of them here); DELETE and expiry forget them everywhere.

import (
	"bufio"
	"context"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
	"github.com/jetrpc/jetrpc/internal/engineconn"
	"github.com/jetrpc/jetrpc/internal/httpz/fasthttpz"
	"github.com/jetrpc/jetrpc/internal/pool"
	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/internal/httpx"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
	"github.com/jetrpc/jetrpc/mcp/internal/sse"
	"github.com/jetrpc/jetrpc/streamstore"
	"github.com/valyala/fasthttp"
)

// maxPeerInfo bounds the clientInfo and capabilities a session keeps.
const maxPeerInfo = 8 << 10

// newSessionState encodes what a replica needs to adopt the session:
// {"protocolVersion":V,"clientInfo":{..},"capabilities":{..}}, the last
// two from initialize's params.
func newSessionState(dst []byte, version string, params []byte) []byte {
	dst = append(dst, `{"protocolVersion":`...)
	dst = encode.AppendString(dst, version)
	var it decode.Iter
	if it.Reset(params) && it.IsObject() && len(params) <= maxPeerInfo {
		for it.Next() {
			k, v := it.Key(), it.Value()
			if decode.KeyEquals(k, "clientInfo") || decode.KeyEquals(k, "capabilities") {
				dst = append(append(append(append(dst, ',', '"'), k...), '"', ':'), v...)
			}
		}
	}
	return append(dst, '}')
}

// readSessionState returns the revision of a saved state.
func readSessionState(state []byte) (version string, ok bool) {
	var it decode.Iter
	if !it.Reset(state) || !it.IsObject() {
		return "", false
	}
	for it.Next() {
		if decode.KeyEquals(it.Key(), "protocolVersion") {
			v, esc := proto.Str(it.Value())
			if esc || !proto.IsSupported(v) {
				return "", false
			}
			return string(v), true
		}
	}
	return "", false
}

// saveSession stores the state of a session initialize opened, when the
// store is shared. body is the initialize request.
func (h *Handler) saveSession(s *session, body []byte) {
	ss, ok := h.store.(streamstore.SessionStore)
	if !ok {
		return
	}
	var p decode.Parser
	var params []byte
	if m, err := p.Parse(body); err == nil {
		params = m.Params
	}
	b := pool.GetBuffer()
	defer pool.PutBuffer(b)
	b.B = newSessionState(b.B, s.core.VersionOr(mcp.Latest), params)
	if err := ss.SaveSession(h.ctx, s.id, b.B); err != nil {
		h.log.Warn("mcp: session store save failed", "err", err)
	}
}

// lookupOrAdopt returns the open session of id, adopting it from the
// shared store when this process does not hold it; nil: none.
func (h *Handler) lookupOrAdopt(id []byte) *session {
	if s := h.lookup(id); s != nil {
		return s
	}
	return h.adopt(bytesconv.B2S(id))
}

// adopt makes a session another replica opened this process's, from its
// state in the shared store. id is valid only during the call.
func (h *Handler) adopt(id string) *session {
	ss, ok := h.store.(streamstore.SessionStore)
	if !ok {
		return nil
	}
	if _, ok := h.ids.Verify(id); !ok {
		return nil // made up, or signed with another key
	}
	state, found, err := ss.LoadSession(h.ctx, id)
	if err != nil {
		h.log.Warn("mcp: session store load failed", "err", err)
		return nil
	}
	if !found {
		return nil
	}
	version, ok := readSessionState(state)
	if !ok {
		return nil
	}
	if int(h.count.Load()) >= h.maxSessions && !h.makeRoom() {
		return nil
	}
	s := h.newSessionID(string([]byte(id)))
	s.core.SetVersion(version)
	s.core.SetInitialized()
	if v, loaded := h.sessions.LoadOrStore(s.id, s); loaded { // another request adopted it first
		s.leave()
		return v.(*session)
	}
	h.count.Add(1)
	h.startJanitor()
	if h.isClosed() { // Shutdown ran meanwhile and did not see it
		h.leaveSession(s)
		return nil
	}
	return s
}

// leave ends a session on this process only, keeping its state and
// streams in the store for another replica.
func (s *session) leave() {
	s.keep.Store(true)
	s.close()
}

// leaveSession ends a session here and forgets it here; a shared store
// keeps it (Shutdown: another replica takes over), any other forgets it.
func (h *Handler) leaveSession(s *session) {
	if _, shared := h.store.(streamstore.SessionStore); shared {
		s.keep.Store(true)
	}
	h.endSession(s)
}

// resumeShared serves a resume of a stream this process does not hold
// from a store that can follow it: the stored events after seq, then the
// live ones until the final event. It reports false when the store cannot
// follow streams (the caller replays what it has).
func (h *Handler) resumeShared(ctx *fasthttp.RequestCtx, sess *session, id, seq uint64) bool {
	f, ok := h.store.(streamstore.Follower)
	if !ok {
		return false
	}
	key := streamstore.Key{Session: sess.id, Stream: id}
	var events []byte
	last, final := seq, false
	// From the first event kept, to learn whether the stream has ended
	// even when nothing follows seq.
	found, err := h.store.Replay(h.ctx, key, 0, func(ev streamstore.Event) error {
		if ev.Seq > seq {
			events = append(events, ev.Data...)
			last = ev.Seq
		}
		final = final || ev.Final
		return nil
	})
	switch {
	case err != nil:
		h.log.Warn("mcp: event store replay failed", "err", err)
		httpx.Error(ctx, fasthttp.StatusServiceUnavailable, nil, -32603, "Event store unavailable")
		return true
	case !found:
		httpx.Error(ctx, fasthttp.StatusBadRequest, nil, -32600, "Bad Request: Last-Event-ID names no stream of this session")
		return true
	case final && len(events) == 0:
		ctx.SetStatusCode(fasthttp.StatusNoContent) // ended, nothing more
		return true
	case final:
		sseHeaders(ctx)
		ctx.SetBody(events)
		return true
	}
	sseHeaders(ctx)
	sess.active.Add(1)
	nc := ctx.Conn()
	fasthttpz.SetStream(ctx, func(w *bufio.Writer) {
		defer sess.active.Add(-1)
		defer sess.touch()
		h.follow(w, nc, f, sess, key, last, events)
	})
	return true
}

// follow writes events, then the stream's live events after last, until
// the final one, the connection fails, or the session or the endpoint
// ends.
func (h *Handler) follow(w *bufio.Writer, nc interface{ SetWriteDeadline(time.Time) error },
	f streamstore.Follower, sess *session, key streamstore.Key, last uint64, events []byte) {
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	evs := make(chan []byte, 64)
	go func() {
		defer close(evs)
		err := f.Follow(ctx, key, last, func(ev streamstore.Event) error {
			select {
			case evs <- append([]byte(nil), ev.Data...):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if err != nil && ctx.Err() == nil {
			h.log.Warn("mcp: event store follow failed", "err", err)
		}
	}()
	write := func(b []byte) bool {
		if nc != nil {
			_ = nc.SetWriteDeadline(time.Now().Add(h.writeTimeout))
		}
		_, err := w.Write(b)
		return err == nil && w.Flush() == nil
	}
	if len(events) > 0 && !write(events) {
		return
	}
	tick := time.NewTicker(h.keepAlive)
	defer tick.Stop()
	for {
		select {
		case ev, ok := <-evs:
			if !ok || !write(ev) { // the final event was written, or the follow failed
				return
			}
		case <-tick.C:
			if !write(sse.KeepAliveComment) {
				return
			}
		case <-sess.done:
			return
		case <-h.done:
			return
		}
	}
}

// newSessionID makes a session of the endpoint with the given id; it is
// not yet in the table.
func (h *Handler) newSessionID(id string) *session {
	s := &session{id: id, h: h, done: make(chan struct{}), streams: map[uint64]*sse.Stream{}}
	s.core = h.core.NewSession(id, s)
	s.conn = engineconn.NewConn(h.e, h.ctx, engineconn.SendFunc(s.send), false)
	s.touch()
	return s
}
