//go:build !race

package metrics_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/metrics"
)

// TestProcessAllocs: with the Prometheus observer on, Process still
// allocates nothing per message, for every case of BenchmarkEngine, unknown
// methods and errors included, every call timed (LatencySample 1) or not
// (the default).
func TestProcessAllocs(t *testing.T) {
	e, _, _ := newObserved(t, nil)
	testProcessAllocs(t, e)
	m, err := metrics.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	testProcessAllocs(t, newEngine(t, &dispatch.Options{Observer: m}))
}

func testProcessAllocs(t *testing.T, e *dispatch.Engine) {
	t.Helper()
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
