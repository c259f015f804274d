package dispatch

// NOTE: learning which methods are quick. A method registered neither
// Inline nor Concurrent "may block": a call of it never runs on a
// connection's reading goroutine, and a batch's members of it run on the
// worker pool, concurrently. Most such methods (typed handlers registered
// with plain Register) finish in about a microsecond, less than a hand-off
// to a worker costs. So the engine times their runs and, once a method has
// run quickly learnRuns times in a row, runs its batch members on the
// batch's own goroutine, one after another, like Inline members. That
// goroutine is never a connection's reader (a transport routes a batch
// holding a method that may block to a worker), so a handler that blocks
// still never stalls a connection. Once learned, a method's runs are timed
// one in sampleEvery, and every run in a batch. A slow sampled run halves
// its score, which unlearns it; a slow run inline in a batch unlearns it at
// once, and the rest of that batch's members of it go to the workers.

import (
	"sync/atomic"
	"time"
)

const (
	quickRun    = 50 * time.Microsecond
	learnRuns   = 32
	sampleEvery = 64 // a power of two
)

// cost is what the engine learned of one method's running time: a score
// that a quick run raises by one, up to learnRuns, and a slow one halves
// (wall time on a busy machine includes waiting for a core, so one slow run
// is not proof). A method is learned at learnRuns.
type cost struct {
	quick atomic.Int32
}

// learned reports whether the method has proved quick.
func (c *cost) learned() bool { return c.quick.Load() >= learnRuns }

// unlearn forgets that the method was quick (a run inline in a batch was
// slow: the next runs go to the workers again).
func (c *cost) unlearn() { c.quick.Store(0) }

// record notes a run that took d and reports whether it was slow.
func (c *cost) record(d time.Duration) bool {
	q := c.quick.Load()
	if d > quickRun {
		if q != 0 { // halve: a run can be slow because its goroutine waited for a core
			c.quick.Store(q / 2)
		}
		return true
	}
	if q < learnRuns {
		c.quick.Add(1)
	}
	return false
}

// timed reports whether this run is to be timed: every run while the
// method is learning, then one in sampleEvery per goroutine's call state.
func (c *cost) timed(cc *callCtx) bool {
	if !c.learned() {
		return true
	}
	cc.ticks++
	return cc.ticks%sampleEvery == 0
}
