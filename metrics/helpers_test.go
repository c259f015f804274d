package metrics_test

import (
	"log/slog"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/metrics"
	"github.com/prometheus/client_golang/prometheus"
)

var discard = slog.New(slog.DiscardHandler)

// newEngine returns an engine with the demo methods.
func newEngine(tb testing.TB, opts *dispatch.Options) *dispatch.Engine {
	tb.Helper()
	if opts.Logger == nil {
		opts.Logger = discard
	}
	e := dispatch.New(opts)
	if err := demo.Register(e); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	return e
}

// newObserved returns an engine with the demo methods observed by a new
// Metrics registered in a new registry, timing every call (LatencySample
// 1) so that the latency histograms count exactly.
func newObserved(tb testing.TB, opts *dispatch.Options) (*dispatch.Engine, *metrics.Metrics, *prometheus.Registry) {
	tb.Helper()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, &metrics.Options{LatencySample: 1})
	if err != nil {
		tb.Fatal(err)
	}
	if opts == nil {
		opts = &dispatch.Options{}
	}
	opts.Observer = m
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	e := dispatch.New(opts)
	if err := demo.Register(e); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	return e, m, reg
}
