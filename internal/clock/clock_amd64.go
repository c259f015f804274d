package clock

import (
	"math/bits"
	"time"
)

// rdtsc reads the time-stamp counter (clock_amd64.s).
func rdtsc() int64

// cpuid runs CPUID with eax and ecx (clock_amd64.s).
func cpuid(eax, ecx uint32) (a, b, c, d uint32)

// first is a pair of readings of the runtime's clock and the TSC taken
// together at start-up: the other end of the calibration span.
var first = pair()

// Now returns the nanoseconds since the process started, never negative.
func Now() int64 {
	if ready.Load() {
		return sc.at(rdtsc())
	}
	return slow()
}

// slow is Now before the TSC is calibrated, and where it is not used.
func slow() int64 {
	n := since()
	if n-first.ns >= int64(calibrateAfter) && calibrating.CompareAndSwap(false, true) {
		go calibrate() // CPUID traps to a hypervisor: not on the caller's time
	}
	return n
}

// calibrate measures the TSC's rate, or decides not to use it; once
// (calibrating is set).
func calibrate() {
	defer settled.Store(true)
	if !invariantTSC() || !kernelUsesTSC() {
		return // calibrating stays set: the runtime's clock for good
	}
	last := pair()
	mul, ok := rate(first, last)
	if !ok {
		return
	}
	sc = scale{ns: last.ns, ticks: last.ticks, mul: mul}
	ready.Store(true)
}

// rate returns the TSC's rate between two pairs of readings, ns per tick
// times 2^32, and whether it is one to use: both pairs good, at least
// calibrateAfter apart, and a counter between 100 MHz and 20 GHz.
func rate(first, last scale) (mul uint64, ok bool) {
	dn, dt := last.ns-first.ns, last.ticks-first.ticks
	if first.ticks == 0 || last.ticks == 0 || dn < int64(calibrateAfter) || dt <= 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(dn), 1<<32)
	if hi >= uint64(dt) { // over 2^32 ns a tick
		return 0, false
	}
	mul, _ = bits.Div64(hi, lo, uint64(dt))
	return mul, mul >= 1<<32/20 && mul <= 10<<32
}

// at converts a reading of the TSC to the runtime's clock.
func (s *scale) at(ticks int64) int64 {
	d := ticks - s.ticks
	if d < 0 { // a CPU whose counter lags the calibration point's
		return s.ns
	}
	hi, lo := bits.Mul64(uint64(d), s.mul)
	return s.ns + int64(hi<<32|lo>>32)
}

// pair reads the runtime's clock between two readings of the TSC, and
// returns it with their midpoint; ticks is 0 when no try had the two
// readings close together (a preemption between them).
func pair() (p scale) {
	for range 8 {
		a := rdtsc()
		n := since()
		b := rdtsc()
		if b > a && time.Duration(since()-n) < maxGap && b-a < 1<<20 {
			return scale{ns: n, ticks: a + (b-a)/2}
		}
	}
	return scale{ns: since()}
}

// invariantTSC reports whether the CPU says its TSC runs at a constant
// rate in every power state (CPUID 0x80000007, EDX bit 8).
func invariantTSC() bool {
	if top, _, _, _ := cpuid(0x80000000, 0); top < 0x80000007 {
		return false
	}
	_, _, _, d := cpuid(0x80000007, 0)
	return d&(1<<8) != 0
}
