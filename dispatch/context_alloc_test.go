//go:build !race

package dispatch_test

import (
	"runtime"
	"testing"
)

// TestContextMemory: a call's own context, safe to keep, costs no
// allocation and next to no memory (a byte of an arena), for a method
// registered the default way, an Inline one and a batch's members.
func TestContextMemory(t *testing.T) {
	e := newDemo(t, nil)
	for _, msg := range []string{
		`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`,
		`{"jsonrpc":"2.0","method":"update","params":[1,2,3]}`,
		`[{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1},{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":2}]`,
	} {
		msg := []byte(msg)
		dst := make([]byte, 0, 1024)
		for range 1000 {
			dst = e.Process(dst[:0], msg)
		}
		const n = 20000
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			dst = e.Process(dst[:0], msg)
		}
		runtime.ReadMemStats(&after)
		if per := float64(after.TotalAlloc-before.TotalAlloc) / n; per > 8 {
			t.Errorf("%s: %.1f bytes a message, want at most 8", msg, per)
		}
	}
}
