package clock

import (
	"testing"
	"time"
)

// TestTSCUsedWhereSafe: on a machine whose CPU says its TSC is invariant
// and whose kernel reads the TSC itself, Now reads it too once calibrated;
// elsewhere never.
func TestTSCUsedWhereSafe(t *testing.T) {
	Settle()
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
