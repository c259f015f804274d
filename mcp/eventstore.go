package mcp

// NOTE: the EventStore is the seam between the Streamable HTTP endpoint
// and where the events of its resumable streams are kept. The endpoint
// numbers each stream's events itself (Seq from 1; the priming event is 0
// and is not stored), encodes each as the SSE bytes it writes
// ("id: STREAM-SEQ\ndata: MESSAGE\n\n") and appends them here before it
// writes them, so that what a client missed is in the store whichever
// connection, or replica, it comes back on. MemoryStore, the default,
// keeps them in this process in a bounded ring per stream.

import (
	"context"
	"sync"
)

// StreamKey names one resumable event stream: a session's standalone GET
// stream, or the SSE stream of one of its requests. Stream is unique
// within the session (the endpoint draws it at random) and is the first
// part of the stream's event ids, so Last-Event-ID names it.
type StreamKey struct {
	Session string
	Stream  uint64
}

// Event is one event of a stream.
type Event struct {
	// Seq is the event's position in its stream, from 1, and the last part
	// of its id.
	Seq uint64
	// Data is the whole SSE event as the endpoint writes it, id line
	// included, ending with a blank line.
	Data []byte
	// Final marks the stream's last event: the response of its request.
	Final bool
}

// EventStore keeps the events of resumable streams, so that a client that
// lost its connection gets the rest with Last-Event-ID, on this replica or
// another that shares the store. Its methods are called concurrently, for
// different streams; the events of one stream are appended in order, one
// at a time.
type EventStore interface {
	// Append stores ev as the next event of the stream. ev.Data is valid
	// only during the call.
	Append(ctx context.Context, key StreamKey, ev Event) error
	// Replay calls yield, in order, with each stored event of the stream
	// whose Seq is greater than after, and reports whether the store knows
	// the stream at all. An implementation may drop old events to stay
	// within its bounds; Replay then yields those it still has. ev.Data is
	// valid only during yield; an error from yield ends Replay with it.
	Replay(ctx context.Context, key StreamKey, after uint64, yield func(ev Event) error) (found bool, err error)
	// Forget drops every stream of the session (it was deleted or
	// expired).
	Forget(ctx context.Context, session string) error
}

// MemoryStoreOptions bounds a MemoryStore; zero fields are the defaults.
type MemoryStoreOptions struct {
	// MaxStreamBytes bounds the events kept of one stream (default 1 MiB);
	// past it, the oldest are dropped.
	MaxStreamBytes int
	// MaxBytes bounds the events kept of all streams (default 64 MiB); past
	// it, the streams appended to first are dropped whole.
	MaxBytes int
}

// MemoryStore is the default EventStore: each stream's pre-encoded events
// in a ring of bytes in this process, bounded per stream and in all. It
// serves one replica; a deployment of several shares a distributed store
// instead.
type MemoryStore struct {
	maxStream, maxAll int

	mu       sync.Mutex
	streams  map[StreamKey]*memStream
	sessions map[string][]uint64 // the streams of each session
	order    []StreamKey         // streams by first append, for MaxBytes (stale keys skipped)
	bytes    int
}

var _ EventStore = (*MemoryStore)(nil)

// memStream is one stream's ring: data holds the events' bytes back to
// back, refs[first:] the events still kept.
type memStream struct {
	data  []byte
	refs  []memRef
	first int
	start int // data[start:] is kept
}

type memRef struct {
	seq        uint64
	start, end int
	final      bool
}

// NewMemoryStore returns an empty MemoryStore (nil options: the defaults).
func NewMemoryStore(opts *MemoryStoreOptions) *MemoryStore {
	m := &MemoryStore{maxStream: 1 << 20, maxAll: 64 << 20,
		streams: map[StreamKey]*memStream{}, sessions: map[string][]uint64{}}
	if opts != nil && opts.MaxStreamBytes > 0 {
		m.maxStream = opts.MaxStreamBytes
	}
	if opts != nil && opts.MaxBytes > 0 {
		m.maxAll = opts.MaxBytes
	}
	return m
}

// Append stores a copy of ev.
func (m *MemoryStore) Append(_ context.Context, key StreamKey, ev Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.streams[key]
	if s == nil {
		s = &memStream{}
		m.streams[key] = s
		m.sessions[key.Session] = append(m.sessions[key.Session], key.Stream)
		m.order = append(m.order, key)
	}
	start := len(s.data)
	s.data = append(s.data, ev.Data...)
	s.refs = append(s.refs, memRef{seq: ev.Seq, start: start, end: len(s.data), final: ev.Final})
	m.bytes += len(ev.Data)
	for len(s.data)-s.start > m.maxStream && s.first < len(s.refs)-1 {
		r := s.refs[s.first]
		s.first++
		s.start = s.refs[s.first].start
		m.bytes -= r.end - r.start
	}
	s.compact()
	for m.bytes > m.maxAll && len(m.order) > 1 {
		old := m.order[0]
		m.order = m.order[1:]
		if old == key { // the stream being appended to stays, last in line
			m.order = append(m.order, old)
			continue
		}
		m.dropLocked(old)
	}
	return nil
}

// compact moves the kept events to the front once half the ring is dropped
// ones.
func (s *memStream) compact() {
	if s.first == 0 || s.first < len(s.refs)/2 {
		return
	}
	n := copy(s.data, s.data[s.start:])
	s.data = s.data[:n]
	kept := copy(s.refs, s.refs[s.first:])
	s.refs = s.refs[:kept]
	for i := range s.refs {
		s.refs[i].start -= s.start
		s.refs[i].end -= s.start
	}
	s.first, s.start = 0, 0
}

// dropLocked forgets one stream.
func (m *MemoryStore) dropLocked(key StreamKey) {
	s := m.streams[key]
	if s == nil {
		return
	}
	m.bytes -= len(s.data) - s.start
	delete(m.streams, key)
	ids := m.sessions[key.Session]
	for i, id := range ids {
		if id == key.Stream {
			ids = append(ids[:i], ids[i+1:]...)
			break
		}
	}
	if len(ids) == 0 {
		delete(m.sessions, key.Session)
	} else {
		m.sessions[key.Session] = ids
	}
}

// Replay yields the kept events after after. The store's lock is held
// during yield, so yield must not call the store.
func (m *MemoryStore) Replay(_ context.Context, key StreamKey, after uint64, yield func(ev Event) error) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.streams[key]
	if s == nil {
		return false, nil
	}
	for _, r := range s.refs[s.first:] {
		if r.seq <= after {
			continue
		}
		if err := yield(Event{Seq: r.seq, Data: s.data[r.start:r.end:r.end], Final: r.final}); err != nil {
			return true, err
		}
	}
	return true, nil
}

// Forget drops the session's streams.
func (m *MemoryStore) Forget(_ context.Context, session string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range append([]uint64(nil), m.sessions[session]...) {
		m.dropLocked(StreamKey{Session: session, Stream: id})
	}
	if len(m.order) > 2*len(m.streams)+64 { // drop the stale keys
		kept := m.order[:0]
		for _, k := range m.order {
			if m.streams[k] != nil {
				kept = append(kept, k)
			}
		}
		clear(m.order[len(kept):])
		m.order = kept
	}
	return nil
}

// Bytes returns the bytes of the events kept.
func (m *MemoryStore) Bytes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes
}
