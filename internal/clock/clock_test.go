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
	t.Logf("TSC in use: %v", TSC())
}

// BenchmarkNow: Now against time.Since, the clock it replaces.
func BenchmarkNow(b *testing.B) {
	Settle()
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
