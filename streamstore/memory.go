package streamstore

// NOTE: Memory keeps each stream's events back to back in one byte slice
// (a ring: refs[first:] are the events kept, data[start:] their bytes),
// bounded per stream (the oldest events go first) and in all (the streams
// appended to first go whole). Dropped events are compacted away once
// they are half the ring, so appends stay amortised O(1) without copying
// on every drop. One mutex covers the whole store; Replay holds it while
// it yields.

import (
	"context"
	"sync"
)

// MemoryOptions bounds a Memory store; zero fields are the defaults.
type MemoryOptions struct {
	// MaxStreamBytes bounds the events kept of one stream (default 1 MiB);
	// past it, the oldest are dropped.
	MaxStreamBytes int
	// MaxBytes bounds the events kept of all streams (default 64 MiB); past
	// it, the streams appended to first are dropped whole.
	MaxBytes int
}

// Memory is the default Store: each stream's events in a ring of bytes in
// this process, bounded per stream and in all. It serves one replica; a
// deployment of several shares a distributed store instead (natsstore).
type Memory struct {
	maxStream, maxAll int

	mu       sync.Mutex
	streams  map[Key]*memStream
	sessions map[string][]uint64 // the streams of each session
	order    []Key               // streams by first append, for MaxBytes (stale keys skipped)
	bytes    int
}

var _ Store = (*Memory)(nil)

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

// NewMemory returns an empty Memory store (nil options: the defaults).
func NewMemory(opts *MemoryOptions) *Memory {
	m := &Memory{maxStream: 1 << 20, maxAll: 64 << 20,
		streams: map[Key]*memStream{}, sessions: map[string][]uint64{}}
	if opts != nil && opts.MaxStreamBytes > 0 {
		m.maxStream = opts.MaxStreamBytes
	}
	if opts != nil && opts.MaxBytes > 0 {
		m.maxAll = opts.MaxBytes
	}
	return m
}

// Append stores a copy of ev.
func (m *Memory) Append(_ context.Context, key Key, ev Event) error {
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
func (m *Memory) dropLocked(key Key) {
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
func (m *Memory) Replay(_ context.Context, key Key, after uint64, yield func(ev Event) error) (bool, error) {
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
func (m *Memory) Forget(_ context.Context, session string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range append([]uint64(nil), m.sessions[session]...) {
		m.dropLocked(Key{Session: session, Stream: id})
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
func (m *Memory) Bytes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes
}
