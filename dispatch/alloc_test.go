//go:build !race

package dispatch_test

import (
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/dispatch"
)

// TestProcessAllocs asserts the hot path: Process with the demo raw handlers
// allocates nothing per message once its pools are warm, each call with a
// context of its own that is safe to keep: an arena of them per 224 calls
// (dispatch's context.go), nothing else.
func TestProcessAllocs(t *testing.T) {
	calls := map[string]int{"small": 1, "named": 1, "large": 1, "batch10": 10, "notification": 1}
	e := newDemo(t, nil)
	for _, c := range bench.Cases() {
		dst := make([]byte, 0, 8192)
		for i := 0; i < 10; i++ {
			dst = e.Process(dst[:0], c.Msg)
		}
		if c.Name != "notification" && len(dst) == 0 {
			t.Fatalf("%s: no response", c.Name)
		}
		if allocs := testing.AllocsPerRun(1000, func() { dst = e.Process(dst[:0], c.Msg) }); allocs != 0 {
			t.Errorf("%s: %v allocs per Process, want 0", c.Name, allocs)
		}
		// One run of 22,400 messages, so that the arenas are counted,
		// not rounded away.
		allocs := testing.AllocsPerRun(1, func() {
			for range 22400 {
				dst = e.Process(dst[:0], c.Msg)
			}
		})
		if want := float64(22400*calls[c.Name]/224) + 4; allocs > want {
			t.Errorf("%s: %v allocs per 22,400 messages, want at most %v (an arena of contexts per 224 calls)", c.Name, allocs, want)
		}
	}
}

// TestProcessAllocsLimits: setting CallTimeout and MaxBatchResponse costs the
// inline hot path no allocation either.
func TestProcessAllocsLimits(t *testing.T) {
	e := newDemo(t, &dispatch.Options{CallTimeout: time.Second, MaxBatchResponse: 1 << 20})
	for _, c := range bench.Cases() {
		dst := make([]byte, 0, 8192)
		for i := 0; i < 10; i++ {
			dst = e.Process(dst[:0], c.Msg)
		}
		allocs := testing.AllocsPerRun(1000, func() { dst = e.Process(dst[:0], c.Msg) })
		if allocs != 0 {
			t.Errorf("%s: %v allocs per Process, want 0", c.Name, allocs)
		}
	}
}
