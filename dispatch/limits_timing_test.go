package dispatch_test

import (
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
)

// BenchmarkCallTimeout is the cost of CallTimeout for a call of a non-inline
// method (run by Process on the caller's goroutine): "off" is the baseline,
// "on" adds a context with a deadline per call.
func BenchmarkCallTimeout(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","method":"slow_echo","params":[42,23],"id":1}`)
	for _, c := range []struct {
		name string
		d    time.Duration
	}{{"off", 0}, {"on", time.Second}} {
		b.Run(c.name, func(b *testing.B) {
			e := newDemo(b, &dispatch.Options{CallTimeout: c.d}, slowEcho)
			dst := make([]byte, 0, 512)
			b.ReportAllocs()
			for b.Loop() {
				dst = e.Process(dst[:0], msg)
			}
		})
	}
}
