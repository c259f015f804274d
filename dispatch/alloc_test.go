//go:build !race

package dispatch_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/bench"
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
