//go:build !race

package dispatch_test

import (
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/dispatch"
)

// TestProcessAllocs asserts the hot path: Process with the demo raw handlers
// allocates nothing per message once its pools are warm, with
// ReuseContexts; by default (a context of its own per call, safe to keep)
// one chunk of contexts per 64 calls, nothing else.
func TestProcessAllocs(t *testing.T) {
	calls := map[string]int{"small": 1, "named": 1, "large": 1, "batch10": 10, "notification": 1}
	e := newDemo(t, nil)
	for _, c := range bench.Cases() {
		dst := make([]byte, 0, 8192)
		for i := 0; i < 10; i++ {
			dst = e.Process(dst[:0], c.Msg)
		}
		// One run of 3600 messages, so that the chunks are counted, not
		// rounded away.
		allocs := testing.AllocsPerRun(1, func() {
			for range 3600 {
				dst = e.Process(dst[:0], c.Msg)
			}
		})
		// The chunks make the collector run now and then, which empties
		// the pools: a few states are made again (under 10%).
		if want := float64(3600*calls[c.Name]/64)*1.1 + 4; allocs > want {
			t.Errorf("%s: %v allocs per 3600 messages, want at most %v (a chunk of contexts per 64 calls)", c.Name, allocs, want)
		}
	}
	e = newDemo(t, &dispatch.Options{ReuseContexts: true})
	for _, c := range bench.Cases() {
		dst := make([]byte, 0, 8192)
		for i := 0; i < 10; i++ {
			dst = e.Process(dst[:0], c.Msg)
		}
		if c.Name != "notification" && len(dst) == 0 {
			t.Fatalf("%s: no response", c.Name)
		}
		allocs := testing.AllocsPerRun(1000, func() { dst = e.Process(dst[:0], c.Msg) })
		if allocs != 0 {
			t.Errorf("%s: %v allocs per Process, want 0", c.Name, allocs)
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
