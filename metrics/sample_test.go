package metrics_test

import (
	"context"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/metrics"
	"github.com/prometheus/client_golang/prometheus"
)

// TestLatencySample: with LatencySample 8 one call in eight is timed and
// counts for eight in the latency histogram, so its count is a multiple
// of 8 near the calls made, while jetrpc_calls_total counts every call;
// the default (1) times every call, and so does Metrics
// within dispatch.Observers (the engine then times every call for all),
// whether the engine also times the method's runs for their cost or not.
func TestLatencySample(t *testing.T) {
	const calls = 4000
	small := []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	f := func(name string, opts *metrics.Options, wrap, exact bool, mode demo.Mode) {
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
		for range calls {
			e.Process(nil, small)
		}
		got, others := series(scrape(t, reg))
		if n := got[`jetrpc_calls_total{code="ok",method="subtract"}`]; n != calls {
			t.Errorf("%s: calls_total %v, want %d", name, n, calls)
		}
		n := got[`jetrpc_call_duration_seconds_count{method="subtract"}`]
		switch {
		case exact && n != calls:
			t.Errorf("%s: duration count %v, want %d", name, n, calls)
		case !exact && (int(n)%8 != 0 || n < calls*0.8 || n > calls*1.2):
			t.Errorf("%s: duration count %v, want a multiple of 8 within 20%% of %d", name, n, calls)
		}
		if s := others[`jetrpc_call_duration_seconds_sum{method="subtract"}`]; s <= 0 {
			t.Errorf("%s: duration sum %v", name, s)
		}
	}
	f("default: every call", nil, false, true, demo.Inline)
	f("LatencySample 8", &metrics.Options{LatencySample: 8}, false, false, demo.Inline)
	f("LatencySample 5 (8)", &metrics.Options{LatencySample: 5}, false, false, demo.Inline)
	f("LatencySample 1", &metrics.Options{LatencySample: 1}, false, true, demo.Inline)
	f("within Observers", nil, true, true, demo.Inline)
	// Methods the engine times for their cost (neither Inline nor
	// Concurrent): the samples are still one in 8, the others untimed.
	f("LatencySample 8, timed for cost", &metrics.Options{LatencySample: 8}, false, false, demo.Default)
	f("typed, LatencySample 1", &metrics.Options{LatencySample: 1}, false, true, demo.Typed)
}

// nopObserver observes nothing, but every call: with Metrics in
// dispatch.Observers it makes a combined observer of each method.
type nopObserver struct{}

func (nopObserver) Method(string) dispatch.MethodObserver { return nopObserver{} }
func (nopObserver) Message(in, out, batch int)            {}
func (nopObserver) Event(dispatch.Event)                  {}
func (nopObserver) Begin(context.Context)                 {}
func (nopObserver) End(context.Context, dispatch.CallEnd) {}
