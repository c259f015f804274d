// Package streamstore keeps the events of resumable event streams: the
// seam between a server that streams events (MCP's Streamable HTTP
// endpoint, an A2A agent's task streams) and where those events are kept,
// so that a client that lost its connection gets the rest, on this
// replica or another that shares the store.
//
// A Store appends, replays and forgets events. A store shared by several
// replicas may also keep each session's state (SessionStore) and follow
// the events another replica goes on appending (Follower). Memory, the
// default, keeps the events in this process; package natsstore keeps them
// in NATS JetStream for replicas to share.
//
// The package has no protocol in it: a stream is named by a Key (a
// session and a stream number), and an event is opaque bytes with a
// sequence number, which the server that appends them encodes as it
// writes them (MCP stores whole SSE events, "id: ...\ndata: ...\n\n").
package streamstore

import "context"

// Key names one resumable event stream: for MCP a session's standalone
// GET stream, or the SSE stream of one of its requests. Stream is unique
// within the session.
type Key struct {
	Session string
	Stream  uint64
}

// Event is one event of a stream.
type Event struct {
	// Seq is the event's position in its stream, from 1.
	Seq uint64
	// Data is the event's bytes as the server writes them.
	Data []byte
	// Final marks the stream's last event.
	Final bool
}

// Store keeps the events of resumable streams. Its methods are called
// concurrently, for different streams; the events of one stream are
// appended in order, one at a time.
type Store interface {
	// Append stores ev as the next event of the stream. ev.Data is valid
	// only during the call.
	Append(ctx context.Context, key Key, ev Event) error
	// Replay calls yield, in order, with each stored event of the stream
	// whose Seq is greater than after, and reports whether the store knows
	// the stream at all. An implementation may drop old events to stay
	// within its bounds; Replay then yields those it still has. ev.Data is
	// valid only during yield; an error from yield ends Replay with it.
	Replay(ctx context.Context, key Key, after uint64, yield func(ev Event) error) (found bool, err error)
	// Forget drops every stream of the session (it was deleted or
	// expired).
	Forget(ctx context.Context, session string) error
}

// SessionStore is implemented by a Store that several replicas share: it
// keeps each session's state, so that any replica can take the session
// over. state is an opaque JSON object of the server's (valid only during
// SaveSession); Forget drops it with the session's streams.
type SessionStore interface {
	SaveSession(ctx context.Context, session string, state []byte) error
	// LoadSession returns the saved state of the session, and found false
	// when the store has none (never saved, forgotten or expired).
	LoadSession(ctx context.Context, session string) (state []byte, found bool, err error)
}

// Follower is implemented by a shared Store that can wait for the events
// that another replica appends to a stream.
type Follower interface {
	// Follow calls yield, in order, with each event of the stream whose Seq
	// is greater than after, those stored and those appended later, until
	// it has yielded the final one (nil), ctx ends (ctx.Err()) or yield
	// fails (its error). ev.Data is valid only during yield.
	Follow(ctx context.Context, key Key, after uint64, yield func(ev Event) error) error
}
