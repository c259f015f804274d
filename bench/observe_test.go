package bench_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/metrics"
)

// newEngineWith is newEngine with opts and middleware.
func newEngineWith(tb testing.TB, opts *dispatch.Options, mw ...dispatch.Middleware) *dispatch.Engine {
	tb.Helper()
	e := dispatch.New(opts)
	if err := demo.Register(e); err != nil {
		tb.Fatal(err)
	}
	if err := e.Use(mw...); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	return e
}

// BenchmarkObserve runs the cases of BenchmarkEngine with observability
// off (the baseline, the same engine as BenchmarkEngine) and with the
// Prometheus observer on (package metrics).
func BenchmarkObserve(b *testing.B) {
	b.Run("off", func(b *testing.B) { benchCases(b, newEngine(b)) })
	b.Run("metrics", func(b *testing.B) {
		m, err := metrics.New(nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		benchCases(b, newEngineWith(b, &dispatch.Options{Observer: m}))
	})
}
