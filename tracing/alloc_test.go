//go:build !race

package tracing_test

import (
	"testing"
)

// TestSampledParentsOnlyAllocs: with Options.SampledParentsOnly a call
// with no parent, or with a parent sampled out that comes in the message's
// _meta, allocates nothing but the context that carries the parent on
// (trace.ContextWithRemoteSpanContext: the context and the boxed span
// context).
func TestSampledParentsOnlyAllocs(t *testing.T) {
	e, _ := newSampledOnly(t)
	f := func(msg string, want float64) {
		t.Helper()
		b := []byte(msg)
		dst := make([]byte, 0, 1024)
		for range 10 {
			dst = e.Process(dst[:0], b)
		}
		if allocs := testing.AllocsPerRun(1000, func() { dst = e.Process(dst[:0], b) }); allocs != want {
			t.Errorf("%s: %v allocs per call, want %v", msg, allocs, want)
		}
	}
	f(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, 0)
	f(`{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":"req-3"}`, 0)
	f(`{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}`, 0)
	f(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1,"_meta":{"traceparent":"00-`+traceID+`-`+parentID+`-00"}}`, 2) // the context carrying the parent
	f(`[{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1},{"jsonrpc":"2.0","method":"update","params":[1]}]`, 0)
}
