package metrics_test

import (
	"context"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/metrics"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// TestLatencySample: whether every call is timed (LatencySample 1, and
// Metrics within dispatch.Observers) or one in 8 after each method's
// first 1024 (the default, LatencySample 8 or 5), the latency histogram's
// count is exactly the calls made, like jetrpc_calls_total, its buckets
// are cumulative with the +Inf one equal to the count, and across scrapes
// every bucket and the sum only grow; whether the engine also times the
// method's runs for their cost or not.
func TestLatencySample(t *testing.T) {
	const calls = 6000
	small := []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	f := func(name string, opts *metrics.Options, wrap bool, mode demo.Mode) {
		t.Helper()
		reg := prometheus.NewRegistry()
		m, err := metrics.New(reg, opts)
		if err != nil {
			t.Fatal(err)
		}
		var obs dispatch.Observer = m
		if wrap {
			obs = dispatch.Observers(m, nopObserver{})
		}
		e := dispatch.New(&dispatch.Options{Observer: obs, Logger: discard})
		if err := demo.RegisterAs(e, mode); err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		var last *dto.Histogram
		for made := 0; made < calls; {
			for range 1000 {
				e.Process(nil, small)
			}
			made += 1000
			fams := scrape(t, reg)
			got, others := series(fams)
			if n := got[`jetrpc_calls_total{code="ok",method="subtract"}`]; n != float64(made) {
				t.Errorf("%s: calls_total %v, want %d", name, n, made)
			}
			if n := got[`jetrpc_call_duration_seconds_count{method="subtract"}`]; n != float64(made) {
				t.Errorf("%s: duration count %v, want %d", name, n, made)
			}
			if s := others[`jetrpc_call_duration_seconds_sum{method="subtract"}`]; s <= 0 {
				t.Errorf("%s: duration sum %v", name, s)
			}
			h := histogramOf(t, fams, "jetrpc_call_duration_seconds", "subtract")
			checkBuckets(t, name, h, last)
			last = h
		}
	}
	f("default", nil, false, demo.Inline)
	f("LatencySample 8", &metrics.Options{LatencySample: 8}, false, demo.Inline)
	f("LatencySample 5 (8)", &metrics.Options{LatencySample: 5}, false, demo.Inline)
	f("LatencySample 1", &metrics.Options{LatencySample: 1}, false, demo.Inline)
	f("within Observers", nil, true, demo.Inline)
	// Methods the engine times for their cost (neither Inline nor
	// Concurrent): the samples are still one in 8, the others untimed.
	f("default, timed for cost", nil, false, demo.Default)
	f("typed, LatencySample 1", &metrics.Options{LatencySample: 1}, false, demo.Typed)
	f("typed", nil, false, demo.Typed)
}

// histogramOf returns the histogram of family name with method label
// method.
func histogramOf(t *testing.T, fams map[string]*dto.MetricFamily, name, method string) *dto.Histogram {
	t.Helper()
	for _, mt := range fams[name].GetMetric() {
		for _, l := range mt.GetLabel() {
			if l.GetName() == "method" && l.GetValue() == method {
				return mt.GetHistogram()
			}
		}
	}
	t.Fatalf("no %s{method=%q}", name, method)
	return nil
}

// checkBuckets checks that h's buckets are cumulative and at most its
// count, and that none of them, nor the count or sum, is below its value
// in last (the scrape before; nil for none).
func checkBuckets(t *testing.T, name string, h, last *dto.Histogram) {
	t.Helper()
	var prev uint64
	for i, b := range h.GetBucket() {
		n := b.GetCumulativeCount()
		if n < prev || n > h.GetSampleCount() {
			t.Fatalf("%s: bucket %v holds %d after %d, count %d", name, b.GetUpperBound(), n, prev, h.GetSampleCount())
		}
		if last != nil && n < last.GetBucket()[i].GetCumulativeCount() {
			t.Fatalf("%s: bucket %v went down from %d to %d", name, b.GetUpperBound(), last.GetBucket()[i].GetCumulativeCount(), n)
		}
		prev = n
	}
	if last != nil && (h.GetSampleCount() < last.GetSampleCount() || h.GetSampleSum() < last.GetSampleSum()) {
		t.Fatalf("%s: count or sum went down: %d %v after %d %v", name, h.GetSampleCount(), h.GetSampleSum(),
			last.GetSampleCount(), last.GetSampleSum())
	}
}

// nopObserver observes nothing, but every call: with Metrics in
// dispatch.Observers it makes a combined observer of each method.
type nopObserver struct{}

func (nopObserver) Method(string) dispatch.MethodObserver { return nopObserver{} }
func (nopObserver) Message(in, out, batch int)            {}
func (nopObserver) Event(dispatch.Event)                  {}
func (nopObserver) Begin(context.Context)                 {}
func (nopObserver) End(context.Context, dispatch.CallEnd) {}
