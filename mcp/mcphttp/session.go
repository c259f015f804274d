package mcphttp

// NOTE: the life of an HTTP session (get.go has the table, adopt.go the
// shared store; the part stream transports share, its revision and calls,
// is mcp's, core).
//
//  1. initialize: openSession makes room (expired ones end, then the one
//     idle longest; none idle: 503) and makes a session outside the table;
//     initialize runs under its connection's context. settleSession then
//     keeps it only if the answer is a result: into the table, saved to a
//     shared store, named in Mcp-Session-Id, the janitor started; else
//     the session is closed unseen.
//  2. Use: each request finds it (lookupOrAdopt) and holds it busy
//     (active) until finishRequest touches it; an attached event stream
//     holds it too, while its writer runs. A busy session never expires
//     and is never the one evicted.
//  3. End: DELETE, expiry (the janitor, every SessionIdle/4 within 10 ms
//     to 1 min) and eviction call endSession: close cancels its calls,
//     ends its connection's context and closes done (every stream writer
//     returns), and forgets its events in the store; then it leaves the
//     table. Shutdown calls leaveSession instead, which with a shared
//     store keeps the state and events (keep) for another replica.
//
// A session keeps its live streams and the last maxEndedStreams ended
// ones, so a late Last-Event-ID still resumes.

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/internal/engineconn"
	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
	"github.com/jetrpc/jetrpc/mcp/internal/seam"
	"github.com/jetrpc/jetrpc/mcp/internal/sse"
)

// maxEndedStreams is how many ended streams a session keeps resumable
// (their events stay in the EventStore until it drops them).
const maxEndedStreams = 16

// session is one client's HTTP session: its Mcp-Session-Id, its event
// streams, its connection.
type session struct {
	id       string
	core     seam.Session // the part every transport shares (package mcp)
	h        *Handler
	conn     *engineconn.Conn // its context is the session's; its Peer sends to the client
	lastUsed atomic.Int64     // unix nanoseconds
	active   atomic.Int32     // requests being served and streams attached
	done     chan struct{}    // closed when the session ends
	keep     atomic.Bool      // close leaves its state and events in the store (adopt.go)
	// owner is who opened it (Options.Identity; set before the session is
	// stored, read-only then): only requests of that identity may use it.
	// Empty Scheme and Name: no identity, anyone with the id may.
	ownerScheme, ownerName string

	mu         sync.Mutex
	closed     bool
	streams    map[uint64]*sse.Stream // by stream id: live ones and the last ended ones
	ended      []uint64               // ended streams, oldest first
	standalone *sse.Stream            // the GET stream, once asked for
}

// PeerContext is the session's connection's context (seam.SessionTransport).
func (s *session) PeerContext() context.Context { return s.conn.Context() }

// newStream makes a stream of the endpoint; of sess when it is resumable.
func (h *Handler) newStream(sess *session, prime, standalone bool) *sse.Stream {
	var ss sse.Session // nil, not a nil *session: not resumable
	if sess != nil {
		ss = sess
	}
	st := sse.New(&h.events, ss, h.streamIDs.Add(1), prime, standalone)
	if sess != nil {
		sess.addStream(st)
	}
	return st
}

// The session as its streams see it (sse.Session).
func (s *session) ID() string             { return s.id }
func (s *session) Ended() <-chan struct{} { return s.done }
func (s *session) Hold()                  { s.active.Add(1) }
func (s *session) Unhold()                { s.touch(); s.active.Add(-1) }

// newSession makes a session of the endpoint; it is not yet in the table.
func (h *Handler) newSession() *session {
	return h.newSessionID(h.ids.New())
}

func (s *session) touch() { s.lastUsed.Store(time.Now().UnixNano()) }

// addStream records a new resumable stream, dropping the oldest ended ones.
func (s *session) addStream(st *sse.Stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streams[st.ID()] = st
	for id, old := range s.streams { // at most a few live ones are skipped
		if len(s.streams) <= maxEndedStreams+4 {
			break
		}
		if old.Done() && old != s.standalone {
			delete(s.streams, id)
		}
	}
}

func (s *session) stream(id uint64) *sse.Stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams[id]
}

// standaloneStream returns the session's GET stream, made on first use.
func (s *session) standaloneStream() *sse.Stream {
	s.mu.Lock()
	st := s.standalone
	s.mu.Unlock()
	if st != nil {
		return st
	}
	st = s.h.newStream(s, proto.AtLeast(s.core.VersionOr(mcp.Version20250326), mcp.Version20251125), true)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.standalone == nil {
		s.standalone = st
	}
	return s.standalone
}

// send is the session's engineconn.SendFunc: a message about a request goes
// on that request's stream, anything else on the standalone stream.
func (s *session) send(ctx context.Context, msg []byte) error {
	if c := s.h.callOf(ctx); c != nil && c.sess == s {
		return c.sendEvent(msg)
	}
	return s.standaloneStream().Send(msg, false)
}

// close ends the session: its calls are cancelled, its streams end, its
// events are forgotten. It reports whether it was open.
func (s *session) close() bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	s.core.CancelAll()
	s.conn.Close()
	if s.keep.Load() { // left to another replica (adopt.go)
		return true
	}
	if err := s.h.store.Forget(s.h.ctx, s.id); err != nil {
		s.h.log.Warn("mcp: event store forget failed", "err", err)
	}
	return true
}

// idle reports whether the session has been unused since before t.
func (s *session) idle(t int64) bool {
	return s.active.Load() == 0 && s.lastUsed.Load() < t
}
