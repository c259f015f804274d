package bench_test

import (
	"context"
	"testing"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/metrics"
	"github.com/jetrpc/jetrpc/tracing"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
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

// tracingParentsOnly is tracingSampledOut with
// tracing.Options.SampledParentsOnly: the calls with no sampled parent
// start no span.
func tracingParentsOnly(tb testing.TB) dispatch.Middleware {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.NeverSample())))
	tb.Cleanup(func() { tp.Shutdown(context.Background()) })
	return tracing.Middleware(&tracing.Options{TracerProvider: tp, SampledParentsOnly: true})
}

// tracingSampledOut returns the tracing middleware on an SDK tracer
// provider that samples nothing out of the calls benchmarked: root spans
// are never sampled, and a parent's sampled flag decides for the others.
func tracingSampledOut(tb testing.TB) dispatch.Middleware {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.NeverSample())))
	tb.Cleanup(func() { tp.Shutdown(context.Background()) })
	return tracing.Middleware(&tracing.Options{TracerProvider: tp})
}

// nopObserver observes nothing: what the hooks cost by themselves (the
// calls through the interfaces and the two clock reads per call).
type nopObserver struct{}

func (nopObserver) Method(string) dispatch.MethodObserver { return nopObserver{} }
func (nopObserver) Message(in, out, batch int)            {}
func (nopObserver) Event(dispatch.Event)                  {}
func (nopObserver) Begin(context.Context)                 {}
func (nopObserver) End(context.Context, dispatch.CallEnd) {}

// BenchmarkObserve runs the cases of BenchmarkEngine with observability
// off (the baseline, the same engine as BenchmarkEngine), with an observer
// that does nothing (hooks: the cost of the hook itself), with the
// Prometheus observer on (package metrics: metrics, its default, which
// times one call in 8 after each method's first 1024, the histogram's
// count exact; metrics-every, LatencySample 1, every call timed), and with tracing on and every
// trace sampled out (package tracing; no span is exported). tracing-meta
// is the small call carrying a traceparent in _meta whose sampled flag is
// off, which adds parsing it. tracing-parents is tracing with
// tracing.Options.SampledParentsOnly.
func BenchmarkObserve(b *testing.B) {
	b.Run("off", func(b *testing.B) { benchCases(b, newEngine(b)) })
	b.Run("hooks", func(b *testing.B) { benchCases(b, newEngineWith(b, &dispatch.Options{Observer: nopObserver{}})) })
	b.Run("metrics", func(b *testing.B) {
		m, err := metrics.New(nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		benchCases(b, newEngineWith(b, &dispatch.Options{Observer: m}))
	})
	b.Run("metrics-every", func(b *testing.B) {
		m, err := metrics.New(nil, &metrics.Options{LatencySample: 1})
		if err != nil {
			b.Fatal(err)
		}
		benchCases(b, newEngineWith(b, &dispatch.Options{Observer: m}))
	})
	b.Run("tracing", func(b *testing.B) { benchCases(b, newEngineWith(b, nil, tracingSampledOut(b))) })
	b.Run("tracing-parents", func(b *testing.B) { benchCases(b, newEngineWith(b, nil, tracingParentsOnly(b))) })
	b.Run("tracing-meta/small", func(b *testing.B) {
		e := newEngineWith(b, nil, tracingSampledOut(b))
		msg := []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1,` +
			`"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"}}`)
		dst := make([]byte, 0, 4096)
		b.SetBytes(int64(len(msg)))
		b.ReportAllocs()
		for b.Loop() {
			dst = e.Process(dst[:0], msg)
		}
	})
}

// BenchmarkObserveParallel is BenchmarkObserve's off and metrics on every
// CPU at once (b.RunParallel, GOMAXPROCS goroutines calling Process on one
// engine): what counting a call costs when several CPUs count the same
// method's calls, where counters shared between them are passed from
// cache to cache. Methods registered Inline (demo.Register), as in
// BenchmarkObserve.
func BenchmarkObserveParallel(b *testing.B) {
	run := func(b *testing.B, e *dispatch.Engine) {
		for _, c := range bench.Cases() {
			b.Run(c.Name, func(b *testing.B) {
				b.SetBytes(int64(len(c.Msg)))
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					dst := make([]byte, 0, 4096)
					for pb.Next() {
						dst = e.Process(dst[:0], c.Msg)
					}
				})
			})
		}
	}
	b.Run("off", func(b *testing.B) { run(b, newEngine(b)) })
	b.Run("metrics", func(b *testing.B) {
		m, err := metrics.New(nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		run(b, newEngineWith(b, &dispatch.Options{Observer: m}))
	})
}
