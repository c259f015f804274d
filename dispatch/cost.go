package dispatch

// NOTE: learning which methods are quick. A method registered neither
// Inline nor Concurrent "may block": until it has proved quick, a call of
// it never runs on a connection's reading goroutine, and a batch's members
// of it run on the worker pool, concurrently. Most such methods (typed
// handlers registered with plain Register) finish in about a microsecond,
// less than a hand-off to a worker costs. So the engine times their runs
// and, once a method has run quickly learnRuns times in a row, runs its
// calls where they arrive: on a connection's reading goroutine
// (conn.Try), and a batch's members on the batch's own goroutine,
// one after another, like Inline members; a notification of it runs on
// the reading goroutine too, when nothing is on the connection's ordered
// queue to keep it behind (tryProcess). Every such run is timed (the
// others, on workers, one in sampleEvery). A slow run halves the method's
// score (see cost): a method that turns slow is unlearned by its second
// slow run (in a batch, the rest of that batch's members go to the
// workers at once), and the streak it needs to be learned again doubles,
// up to maxLearnRuns, so that a method that is slow now and then settles
// on the workers: a handler that blocks holds up its connection for two
// runs at most each time it is learned (three in a burst of pipelined
// calls: see readClock). One slow run alone, which a busy machine makes
// now and then, unlearns nothing. A method whose handler calls the peer (Peer.Call; Method.CallsPeer) is never
// learned: on the reading goroutine its call could not be answered.

import (
	"sync/atomic"
	"time"
)

const (
	quickRun     = 50 * time.Microsecond
	learnRuns    = 32
	maxLearnRuns = 4096
	sampleEvery  = 64 // a power of two
)

// cost is what the engine learned of one method's running time: a score
// that a quick run raises by one, up to twice the streak the method needs
// (need: learnRuns at first), and a slow one halves (wall time on a busy
// machine includes waiting for a core, so one slow run is not proof). A
// method is learned while its score is at least need: one slow run of a
// method at its best score leaves it learned, a second before it earned
// need quick runs back unlearns it, and each time that happens need
// doubles, up to maxLearnRuns.
type cost struct {
	quick atomic.Int32
	need  atomic.Int32 // the streak that makes it learned (0: learnRuns)
	never atomic.Bool  // the handler calls the peer: never learned
}

func (c *cost) needed() int32 {
	if need := c.need.Load(); need != 0 {
		return need
	}
	return learnRuns
}

// learned reports whether the method has proved quick.
func (c *cost) learned() bool { return c.quick.Load() >= c.needed() && !c.never.Load() }

// record notes a run that took d and reports whether it was slow.
func (c *cost) record(d time.Duration) bool {
	q, need := c.quick.Load(), c.needed()
	if d > quickRun {
		// Halve: a run can be slow because its goroutine waited for a core.
		if q >= need && q/2 < need { // unlearned: coming back takes longer
			c.need.Store(min(2*need, maxLearnRuns))
		}
		c.quick.Store(q / 2)
		return true
	}
	if q < 2*need {
		c.quick.Add(1)
	}
	return false
}

// timed reports whether this run is to be timed: every run while the
// method is learning and every run where it arrived (cc.here), else one
// in sampleEvery per goroutine's call state.
func (c *cost) timed(cc *callCtx) bool {
	if cc.here || !c.learned() {
		return true
	}
	cc.ticks++
	return cc.ticks%sampleEvery == 0
}

// readClock times the runs of methods that may block on one connection's
// reading goroutine (conn.Try), every one of which is timed. In a burst of
// messages read without waiting (conn.TryBuffered), a run is timed from
// the end of the previous timed run rather than from a clock read of its
// own: one clock read per call instead of two. A read costs about 10 ns
// where the engine reads the time-stamp counter (internal/clock), 15-50
// through the vDSO elsewhere (50 on a kvm-clock VM); a quick call over TCP
// costs about a microsecond.
//
// What lies between the two runs is the reading goroutine's own work on
// the message (framing, parsing, taking the call's context), which the
// run's time then includes. On a loaded machine that is where a
// preemption or a garbage collector's assist often falls, and counting it
// unlearned quick methods under load (a fifth of the calls went to the
// workers at a load average of 17, against 3% with two reads). So a run
// timed that way which looks slow is not counted: the next run is timed
// on its own (exact), and only such a run counts as slow. A method that
// turns slow in a burst holds up its connection for three runs at most
// (two elsewhere).
type readClock struct {
	last  time.Duration // when the last timed run ended (Engine.now)
	valid bool          // last is the end of the run just before, and nothing ran or waited since
	exact bool          // the last run looked slow: time the next one on its own
}

// start returns when a timed run on the reading goroutine starts, and
// whether that is the end of the run before (borrowed).
func (c *readClock) start(e *Engine) (t time.Duration, borrowed bool) {
	if c.valid && !c.exact {
		return c.last, true
	}
	return e.now(), false
}
