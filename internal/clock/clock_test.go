package clock

import (
	"testing"
	"time"
)

// TestNowKeepsTime: whichever clock Now reads (the TSC once calibrated, on
// machines where that is safe), the time it measures across a sleep is
// the runtime clock's, to within a part in a thousand and a few
// microseconds, before, across and after the calibration point. Each
// reading of Now is bracketed by two of the runtime clock.
func TestNowKeepsTime(t *testing.T) {
	for round := range 5 {
		ra1 := time.Now()
		a := Now()
		ra2 := time.Now()
		time.Sleep(30 * time.Millisecond)
		rb1 := time.Now()
		b := Now()
		rb2 := time.Now()
		got, least, most := time.Duration(b-a), rb1.Sub(ra2), rb2.Sub(ra1)
		slack := most/1000 + 5*time.Microsecond
		if got < least-slack || got > most+slack {
			t.Fatalf("round %d (TSC in use: %v): Now measured %v where the runtime clock measured %v to %v", round, ready.Load(), got, least, most)
		}
		if a < 0 || b < a {
			t.Fatalf("round %d: Now went from %d to %d across a sleep", round, a, b)
		}
	}
	t.Logf("TSC in use: %v (invariant %v, kernel's clocksource the TSC %v)", ready.Load(), invariantTSC(), kernelUsesTSC())
}

// TestTSCUsedWhereSafe: on a machine whose CPU says its TSC is invariant
// and whose kernel reads the TSC itself, Now reads it too once calibrated;
// elsewhere never.
func TestTSCUsedWhereSafe(t *testing.T) {
	calibrated(t)
	safe := invariantTSC() && kernelUsesTSC() && first.ticks != 0
	if ready.Load() != safe {
		t.Fatalf("TSC in use: %v; invariant %v, the kernel's clocksource %v, a start-up pair %v", ready.Load(), invariantTSC(), kernelUsesTSC(), first.ticks != 0)
	}
}

func TestRate(t *testing.T) {
	ms := int64(time.Millisecond)
	cases := []struct {
		name        string
		first, last scale
		ok          bool
		nsPerTick   float64
	}{
		{"3 GHz", scale{ns: 1000, ticks: 5000}, scale{ns: 1000 + 100*ms, ticks: 5000 + 300*ms}, true, 1.0 / 3},
		{"1 GHz", scale{ns: 1, ticks: 1}, scale{ns: 1 + 60*ms, ticks: 1 + 60*ms}, true, 1},
		{"150 MHz", scale{ns: 1, ticks: 1}, scale{ns: 1 + 60*ms, ticks: 1 + 9*ms}, true, 1 / 0.15},
		{"too short a span", scale{ns: 1, ticks: 1}, scale{ns: 1 + 49*ms, ticks: 1 + 49*ms}, false, 0},
		{"no first pair", scale{ns: 1}, scale{ns: 1 + 60*ms, ticks: 1 + 60*ms}, false, 0},
		{"no last pair", scale{ns: 1, ticks: 1}, scale{ns: 1 + 60*ms}, false, 0},
		{"counter went back", scale{ns: 1, ticks: 1 << 40}, scale{ns: 1 + 60*ms, ticks: 1 << 30}, false, 0},
		{"counter stood still", scale{ns: 1, ticks: 7}, scale{ns: 1 + 60*ms, ticks: 7}, false, 0},
		{"50 MHz, too slow", scale{ns: 1, ticks: 1}, scale{ns: 1 + 60*ms, ticks: 1 + 3*ms}, false, 0},
		{"40 GHz, too fast", scale{ns: 1, ticks: 1}, scale{ns: 1 + 60*ms, ticks: 1 + 2400*ms}, false, 0},
	}
	for _, c := range cases {
		mul, ok := rate(c.first, c.last)
		if ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.name, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if got := float64(mul) / (1 << 32); got < c.nsPerTick*0.999999 || got > c.nsPerTick*1.000001 {
			t.Errorf("%s: %v ns a tick, want %v", c.name, got, c.nsPerTick)
		}
		s := scale{ns: c.last.ns, ticks: c.last.ticks, mul: mul}
		second := int64(float64(time.Second) / c.nsPerTick) // ticks in a second
		if got := s.at(c.last.ticks + second); got-s.ns < int64(time.Second)-2 || got-s.ns > int64(time.Second)+2 {
			t.Errorf("%s: a second of ticks is %d ns", c.name, got-s.ns)
		}
		if got := s.at(c.last.ticks - 1000); got != s.ns {
			t.Errorf("%s: a reading behind the calibration point is %d, want the point's %d", c.name, got, s.ns)
		}
	}
}

// calibrated waits until Now has decided on its clock (a second at most).
func calibrated(tb testing.TB) {
	for time.Since(start) < calibrateAfter {
		time.Sleep(10 * time.Millisecond)
	}
	Now()
	for i := 0; !ready.Load() && i < 100; i++ {
		time.Sleep(10 * time.Millisecond) // calibrate runs on a goroutine of its own
	}
}

// BenchmarkNow: Now against time.Since, the clock it replaces.
func BenchmarkNow(b *testing.B) {
	calibrated(b)
	var sink int64
	b.Run("clock=Now", func(b *testing.B) {
		for b.Loop() {
			sink += Now()
		}
	})
	b.Run("clock=time.Since", func(b *testing.B) {
		for b.Loop() {
			sink += int64(time.Since(start))
		}
	})
	_ = sink
}
