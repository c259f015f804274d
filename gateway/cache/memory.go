package cache

// NOTE: how Memory is organised. The key's 64-bit hash (hash/maphash)
// picks one of the shards; each shard has its own lock, an index from hash
// to offset, and one ring of bytes where entries are appended one after the
// other:
//
//	hash (8) | expiry, ns (8) | key length (4) | result length (4) | key | result
//
// Expiry times are on the monotonic clock (time.Since of the store's
// creation: one clock read, half the cost of time.Now, and immune to wall
// clock steps), read only on a hit and on a Set.
//
// When the ring is full, the oldest entries are evicted until the new one
// fits (FIFO by insertion, as in fastcache and bigcache): the write head
// reads each header it passes over and deletes the index entry if it still
// points there. A hit therefore takes only a read lock and writes nothing,
// and a Set into a warm cache writes bytes that are already there. A second
// Set of a key appends a new entry and repoints the index; the old bytes go
// with the FIFO. Get compares the stored key byte for byte, so two keys
// with one hash are never confused (the later one wins the index slot).
//
// The ring grows by doubling up to its share of the budget on first use, so
// an idle cache holds little memory; once full it never allocates again.

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"sync"
	"time"
)

const (
	headerSize = 24
	// DefaultMaxBytes is the byte budget of a Memory store made without one.
	DefaultMaxBytes = 64 << 20
	// DefaultShards is the number of shards of a Memory store made without one.
	DefaultShards = 16
	minRing       = 64 << 10
	maxTTL        = 100 * 365 * 24 * time.Hour // no overflow of the expiry
)

// MemoryOptions configure a Memory store. The zero value (and nil) gives
// the defaults.
type MemoryOptions struct {
	// MaxBytes bounds the bytes the entries take (keys, results and a
	// 24-byte header each; the index adds about 16 bytes an entry on top).
	// Default DefaultMaxBytes.
	MaxBytes int
	// Shards is the number of independently locked parts, rounded up to a
	// power of two; each gets MaxBytes/Shards and no entry larger than that
	// is kept. Default DefaultShards.
	Shards int
	// Now is the clock (tests); default: the monotonic clock.
	Now func() time.Time
}

// Memory is an in-memory Store with a byte budget: entries expire after
// their TTL and, when the budget is used up, the oldest entries are
// evicted first. It is safe for concurrent use; a hit and a Set into a
// warm cache do not allocate.
type Memory struct {
	seed   maphash.Seed
	clock  func() int64 // ns; expiry times are on it
	mask   uint64
	shards []shard
}

var _ Store = (*Memory)(nil)

type shard struct {
	mu    sync.RWMutex
	index map[uint64]uint32
	ring  []byte // grows up to size
	size  int
	// Entries lie in [head, tail), or, once the ring wrapped, in
	// [head, end) and then [0, tail).
	head, tail, end int
	wrapped         bool
	_               [64]byte // keep shards on separate cache lines
}

// NewMemory returns an empty Memory store.
func NewMemory(opts *MemoryOptions) *Memory {
	var o MemoryOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Shards <= 0 {
		o.Shards = DefaultShards
	}
	n := 1
	for n < o.Shards {
		n <<= 1
	}
	per := o.MaxBytes / n
	if per < headerSize+1 {
		per = headerSize + 1
	}
	if per > math.MaxUint32 { // offsets are uint32
		per = math.MaxUint32
	}
	m := &Memory{seed: maphash.MakeSeed(), mask: uint64(n - 1), shards: make([]shard, n)}
	if now := o.Now; now != nil {
		m.clock = func() int64 { return now().UnixNano() }
	} else {
		base := time.Now()
		m.clock = func() int64 { return int64(time.Since(base)) }
	}
	for i := range m.shards {
		m.shards[i].size = per
		m.shards[i].index = make(map[uint64]uint32)
	}
	return m
}

func (m *Memory) shard(key []byte) (*shard, uint64) {
	h := maphash.Bytes(m.seed, key)
	return &m.shards[(h>>32)&m.mask], h
}

// Get appends the result kept under key to dst. It reports false when
// there is none, or it has expired.
func (m *Memory) Get(dst, key []byte) ([]byte, bool) {
	s, h := m.shard(key)
	s.mu.RLock()
	off, ok := s.index[h]
	if ok {
		e := s.ring[off:]
		kl := int(binary.LittleEndian.Uint32(e[16:]))
		rl := int(binary.LittleEndian.Uint32(e[20:]))
		if string(e[headerSize:headerSize+kl]) == string(key) && int64(binary.LittleEndian.Uint64(e[8:])) > m.clock() {
			dst = append(dst, e[headerSize+kl:headerSize+kl+rl]...)
		} else {
			ok = false
		}
	}
	s.mu.RUnlock()
	return dst, ok
}

// Set keeps a copy of result under key for ttl. A ttl that is not positive,
// or an entry larger than a shard's share of the budget, keeps nothing.
func (m *Memory) Set(key, result []byte, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	ttl = min(ttl, maxTTL)
	s, h := m.shard(key)
	need := headerSize + len(key) + len(result)
	if need > s.size {
		return
	}
	exp := m.clock() + int64(ttl)
	s.mu.Lock()
	off := s.reserve(need)
	e := s.ring[off : off+need]
	binary.LittleEndian.PutUint64(e, h)
	binary.LittleEndian.PutUint64(e[8:], uint64(exp))
	binary.LittleEndian.PutUint32(e[16:], uint32(len(key)))
	binary.LittleEndian.PutUint32(e[20:], uint32(len(result)))
	copy(e[headerSize+copy(e[headerSize:], key):], result)
	s.index[h] = uint32(off)
	s.mu.Unlock()
}

// Len reports the number of entries the index holds (expired ones
// included until they are evicted or overwritten).
func (m *Memory) Len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.RLock()
		n += len(s.index)
		s.mu.RUnlock()
	}
	return n
}

// reserve returns the offset of need free bytes, evicting the oldest
// entries as needed. need <= s.size. The caller holds the write lock.
func (s *shard) reserve(need int) int {
	for {
		if !s.wrapped {
			if s.tail+need <= s.size {
				if s.tail+need > len(s.ring) {
					s.grow(s.tail + need)
				}
				off := s.tail
				s.tail += need
				return off
			}
			// Wrap: the entries in [head, tail) become the older segment.
			s.end, s.tail, s.wrapped = s.tail, 0, true
			continue
		}
		if s.tail+need <= s.head {
			off := s.tail
			s.tail += need
			return off
		}
		s.evictOldest()
	}
}

// evictOldest drops the entry at head (the ring is wrapped).
func (s *shard) evictOldest() {
	e := s.ring[s.head:]
	h := binary.LittleEndian.Uint64(e)
	n := headerSize + int(binary.LittleEndian.Uint32(e[16:])) + int(binary.LittleEndian.Uint32(e[20:]))
	if off, ok := s.index[h]; ok && int(off) == s.head {
		delete(s.index, h)
	}
	s.head += n
	if s.head >= s.end {
		// The older segment is gone: [0, tail) is all there is.
		s.head, s.end, s.wrapped = 0, 0, false
	}
}

func (s *shard) grow(min int) {
	n := 2 * len(s.ring)
	if n < minRing {
		n = minRing
	}
	for n < min {
		n *= 2
	}
	if n > s.size {
		n = s.size
	}
	r := make([]byte, n)
	copy(r, s.ring)
	s.ring = r
}
