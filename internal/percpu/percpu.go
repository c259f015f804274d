// Package percpu keeps counters per P (the runtime's processor a goroutine
// runs on): adding to one is a plain add to the P's own cache line, where
// an atomic add to a shared counter is a locked instruction (5-7 ns on the
// machines of BENCHMARKS.md) and, under load from several CPUs, a cache
// line passed between them.
package percpu

// NOTE: An add pins the goroutine to its P (runtime.procPin, as sync.Pool
// does for its per-P caches): nothing else runs on that P until it is
// unpinned, so the P's shard has one writer and a plain read-modify-write
// loses nothing. Readers (Load, at scrape time) read every shard with
// atomic loads while writers may be adding: a word-sized, aligned store is
// never torn (the Go memory model guarantees a racy read of a word sees
// some write), so a reader sees each shard's value before or after an add.
// Under the race detector, and where a uint64 is not a machine word,
// adds are atomic (add_atomic.go). The shards are sized to GOMAXPROCS when
// the Counters are made; a P numbered beyond them (GOMAXPROCS raised since)
// adds atomically to a shared spill shard.

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// line is the alignment and granule of a shard, so that two Ps never
// write the same cache line.
const line = 64

// Counters is a fixed number of uint64 counters kept per P. Its zero value
// is not usable: call New.
type Counters struct {
	n      int             // counters
	ps     int             // shards: GOMAXPROCS when made
	stride int             // words from one shard to the next: n rounded up to a line
	shards []uint64        // shard p's counter i at base + p*stride + i (one line of slack for the alignment)
	base   int             // the index of shard 0's first counter in shards (line-aligned)
	spill  []atomic.Uint64 // n: for the Ps numbered beyond the shards
}

// New returns n counters at 0, with a shard for each P of GOMAXPROCS now.
func New(n int) *Counters {
	const words = line / 8
	c := &Counters{n: n, ps: runtime.GOMAXPROCS(0), stride: (n + words - 1) / words * words,
		spill: make([]atomic.Uint64, n)}
	c.shards = make([]uint64, c.stride*c.ps+words)
	if mis := uintptr(unsafe.Pointer(unsafe.SliceData(c.shards))) % line; mis != 0 {
		c.base = int(line-mis) / 8 // Go aligns a []uint64 to 8 bytes at least
	}
	return c
}

// Shards returns the number of per-P shards (GOMAXPROCS when c was made).
func (c *Counters) Shards() int { return c.ps }

// Len returns the number of counters.
func (c *Counters) Len() int { return c.n }

// Load returns counter i: the sum over the shards.
func (c *Counters) Load(i int) uint64 {
	v := c.spill[i].Load()
	for p := range c.ps {
		v += atomic.LoadUint64(&c.shards[c.base+p*c.stride+i])
	}
	return v
}

// Add adds v to counter i.
func (c *Counters) Add(i int, v uint64) {
	_ = &c.spill[i] // out of range: panic here, not pinned
	p := procPin()
	if p < c.ps {
		add(&c.shards[c.base+p*c.stride+i], v)
	} else {
		c.spill[i].Add(v)
	}
	procUnpin()
}

// Add3 adds vi to counter i, vj to j and vk to k: one pin for the three.
func (c *Counters) Add3(i int, vi uint64, j int, vj uint64, k int, vk uint64) {
	_, _, _ = &c.spill[i], &c.spill[j], &c.spill[k] // out of range: panic here, not pinned
	p := procPin()
	if p < c.ps {
		s := c.shards[c.base+p*c.stride : c.base+p*c.stride+c.n]
		add(&s[i], vi)
		add(&s[j], vj)
		add(&s[k], vk)
	} else {
		c.spill[i].Add(vi)
		c.spill[j].Add(vj)
		c.spill[k].Add(vk)
	}
	procUnpin()
}

// add adds v to a counter of the current P's shard (pinned): a plain
// add, or an atomic one where atomicAdds says so (see the NOTE).
func add(w *uint64, v uint64) {
	if atomicAdds {
		atomic.AddUint64(w, v)
	} else {
		*w += v
	}
}

// procPin pins the goroutine to its P and returns the P's number; the
// runtime keeps it for sync.Pool and for the packages that link to it
// (go.dev/issue/67401: "Do not remove or change the type signature").
//
//go:linkname procPin runtime.procPin
func procPin() int

// procUnpin ends procPin.
//
//go:linkname procUnpin runtime.procUnpin
func procUnpin()
