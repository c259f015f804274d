package bench_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
)

// newPolicyEngine is newEngineAs(tb, m) with the per-method policy of
// issue #34 configured as an operator would (docs/policy.md): timeouts and
// costs by name (on methods other than the benched ones, and a cost on one
// of them), and a method set that serves the benched methods, through
// which each message is processed (MethodSet.ProcessContext, what an HTTP
// listener with --http-api does).
func newPolicyEngine(tb testing.TB, m demo.Mode) *dispatch.MethodSet {
	tb.Helper()
	e := dispatch.New(&dispatch.Options{
		MethodTimeouts: map[string]time.Duration{"sleep": 50 * time.Millisecond, "callback": time.Second},
		MethodCosts:    map[string]int{"sleep": 10, "subtract": 2},
	})
	if err := demo.RegisterAs(e, m); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	return e.NewMethodSet([]string{"subtract", "echo", "update", "notify_", "eth_"})
}

// BenchmarkEnginePolicy runs the cases of BenchmarkEngine on an engine with
// per-method policy configured (newPolicyEngine); compare it with
// BenchmarkEngine (benchstat, after renaming).
func BenchmarkEnginePolicy(b *testing.B) {
	benchSetCases(b, newPolicyEngine(b, demo.Inline))
}

// BenchmarkEngineDefaultPolicy is BenchmarkEnginePolicy on the methods
// registered the default way (BenchmarkEngineDefault's).
func BenchmarkEngineDefaultPolicy(b *testing.B) {
	benchSetCases(b, newPolicyEngine(b, demo.Default))
}

// benchSetCases runs set.ProcessContext on every case of bench.Cases.
func benchSetCases(b *testing.B, set *dispatch.MethodSet) {
	ctx := context.Background()
	for _, c := range bench.Cases() {
		b.Run(c.Name, func(b *testing.B) {
			dst := make([]byte, 0, 4096)
			if dst = set.ProcessContext(ctx, dst, c.Msg); bytes.Contains(dst, []byte(`"error"`)) {
				b.Fatalf("%s: %s", c.Name, dst) // a method outside the set
			}
			b.SetBytes(int64(len(c.Msg)))
			b.ReportAllocs()
			for b.Loop() {
				dst = set.ProcessContext(ctx, dst[:0], c.Msg)
			}
		})
	}
}
