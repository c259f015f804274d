//go:build !race

package dispatch_test

import (
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/dispatch"
)

// TestProcessAllocs asserts the hot path: Process with the demo raw handlers
// allocates nothing per message once its pools are warm.
func TestProcessAllocs(t *testing.T) {
	e := newDemo(t, nil)
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
