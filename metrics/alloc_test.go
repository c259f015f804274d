//go:build !race

package metrics_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/bench"
)

// TestProcessAllocs: with the Prometheus observer on, Process still
// allocates nothing per message, for every case of BenchmarkEngine, unknown
// methods and errors included.
func TestProcessAllocs(t *testing.T) {
	e, _, _ := newObserved(t, nil)
	msgs := map[string][]byte{
		"unknown":     []byte(`{"jsonrpc":"2.0","method":"nope","id":1}`),
		"invalid":     []byte(`{"jsonrpc":"2.0","method":1,"id":1}`),
		"parse error": []byte(`{"jsonrpc"`),
		"error":       []byte(`{"jsonrpc":"2.0","method":"subtract","params":{"a":1},"id":1}`),
	}
	for _, c := range bench.Cases() {
		msgs[c.Name] = c.Msg
	}
	for name, msg := range msgs {
		dst := make([]byte, 0, 8192)
		for range 10 {
			dst = e.Process(dst[:0], msg)
		}
		if allocs := testing.AllocsPerRun(1000, func() { dst = e.Process(dst[:0], msg) }); allocs != 0 {
			t.Errorf("%s: %v allocs per Process with metrics on, want 0", name, allocs)
		}
	}
}
