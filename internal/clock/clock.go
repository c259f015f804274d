// Package clock is the engine's monotonic clock for timing short runs: the
// time since the process started, in nanoseconds, read from the CPU's
// time-stamp counter where that is safe and the runtime's monotonic clock
// everywhere else.
//
// NOTE: why not time.Since. A call that may block is timed on every run it
// makes on a connection's reading goroutine (dispatch/cost.go), so the
// clock is read once a call. time.Since reads it through the vDSO's
// clock_gettime: about 22 ns on a KVM guest whose clocksource is the TSC,
// 10-15% of a small call's own work. Reading the TSC itself (RDTSC) and
// scaling it takes about 9. It is used only where the kernel itself relies
// on the TSC (Linux on amd64 with the "tsc" clocksource, which the kernel
// picks only after checking that the counters of all CPUs are in step) and
// the CPU says the counter is invariant (a constant rate in every power
// state). Its rate is measured against the runtime's clock once at least
// calibrateAfter has passed since the process started; until then, and
// wherever the TSC is not used, Now is the runtime's clock.
//
// The two agree at the calibration point and run at rates within a few
// parts in a million of each other after it, so a duration that spans the
// switch is off by well under a microsecond. Readings on different CPUs
// may differ by the counters' skew (nanoseconds), so a duration can come
// out slightly negative: callers clamp. The rate is measured once: a
// machine whose counter changes rate later (a VM moved to a host of
// another frequency without TSC scaling) reads durations off by that
// ratio. The engine uses them to tell quick runs (microseconds) from slow
// ones and for its observers' latencies; a handler that blocks, for
// milliseconds or more, is told from a quick one either way.
package clock

import (
	"sync/atomic"
	"time"
)

var start = time.Now()

// since is the runtime's monotonic clock, as ns since start.
func since() int64 { return int64(time.Since(start)) }

// calibrateAfter is the span over which the TSC's rate is measured: the
// error of the pair of readings at each end (at most maxGap) is under
// 2 * maxGap / calibrateAfter, 40 parts in a million.
const (
	calibrateAfter = 50 * time.Millisecond
	maxGap         = time.Microsecond
)

// scale is the TSC's rate, fixed once (ready).
type scale struct {
	ns, ticks int64  // a pair of readings taken together: the calibration point
	mul       uint64 // ns per tick, times 2^32
}

var (
	sc          scale
	ready       atomic.Bool // sc is set
	calibrating atomic.Bool // sc is being set, or the TSC is not to be used
	settled     atomic.Bool // Now reads the clock it will read from now on
)

// TSC reports whether Now reads the time-stamp counter.
func TSC() bool { return ready.Load() }

// Settle waits until Now reads the clock it will keep reading (a
// process's first calibrateAfter and a little more at most), so that a
// test can run on it.
func Settle() {
	for !settled.Load() {
		Now()
		time.Sleep(5 * time.Millisecond)
	}
}
