//go:build !race

package httpz_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/internal/httpz"
)

// TestAllocs: Append and Inflate allocate nothing once warm and dst has
// room.
func TestAllocs(t *testing.T) {
	logs := demo.Logs(8 << 10)
	for _, enc := range []httpz.Encoding{httpz.Gzip, httpz.Deflate} {
		z := httpz.Append(nil, enc, logs)
		dst := make([]byte, 0, 2*len(logs))
		if n := testing.AllocsPerRun(100, func() { dst = httpz.Append(dst[:0], enc, logs) }); n != 0 {
			t.Errorf("Append %v: %v allocations, want 0", enc, n)
		}
		if n := testing.AllocsPerRun(100, func() { dst, _ = httpz.Inflate(dst[:0], enc, z, 1<<20) }); n != 0 {
			t.Errorf("Inflate %v: %v allocations, want 0", enc, n)
		}
	}
}
