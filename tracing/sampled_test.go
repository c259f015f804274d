package tracing_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/tracing"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// newSampledOnly is newTraced with Options.SampledParentsOnly, under a
// sampler that samples every span it is asked about (so that a span
// exported where none is due shows), and a method "ctx" that answers
// the traceparent its context carries ("" without one).
func newSampledOnly(tb testing.TB) (*dispatch.Engine, *tracetest.InMemoryExporter) {
	tb.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	tb.Cleanup(func() { tp.Shutdown(context.Background()) })
	e := dispatch.New(&dispatch.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := demo.Register(e); err != nil {
		tb.Fatal(err)
	}
	err := e.Register("ctx", dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
		tp, _ := tracing.ClientTraceContext(ctx)
		return append(append(append(dst, '"'), tp...), '"'), nil
	}))
	if err != nil {
		tb.Fatal(err)
	}
	if err := e.Use(tracing.Middleware(&tracing.Options{TracerProvider: tp, SampledParentsOnly: true})); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	return e, exp
}

// TestSampledParentsOnly: with Options.SampledParentsOnly only a call
// with a sampled parent gets a span; the others get none, and their
// handler still sees the remote parent (trace id and flags propagate).
func TestSampledParentsOnly(t *testing.T) {
	e, exp := newSampledOnly(t)
	unsampled := "00-" + traceID + "-" + parentID + "-00"
	call := func(method, meta string) string {
		t.Helper()
		msg := `{"jsonrpc":"2.0","method":"` + method + `","params":[3,2],"id":1` + meta + `}`
		return string(e.Process(nil, []byte(msg)))
	}
	meta := func(tp string) string { return `,"_meta":{"traceparent":"` + tp + `"}` }

	if out := call("subtract", meta(traceparent)); !strings.Contains(out, `"result":1`) {
		t.Fatalf("response %s", out)
	}
	checkSpan(t, oneSpan(t, exp), "subtract", "1", true, 0)

	for _, m := range []string{"", meta(unsampled), meta("00-bad")} {
		if out := call("subtract", m); !strings.Contains(out, `"result":1`) {
			t.Fatalf("%s: response %s", m, out)
		}
		if spans := exp.GetSpans(); len(spans) != 0 {
			t.Errorf("%s: %d spans exported, want none", m, len(spans))
		}
	}

	f := func(meta, want string) {
		t.Helper()
		if out := call("ctx", meta); !strings.Contains(out, `"result":"`+want+`"`) {
			t.Errorf("%s: the handler's context: %s, want traceparent %q", meta, out, want)
		}
		exp.Reset()
	}
	f("", "")
	f(meta(unsampled), unsampled) // the remote parent, as received
	f(meta("00-bad"), "")
	// A sampled parent: the handler's context holds its server span.
	out := call("ctx", meta(traceparent))
	s := oneSpan(t, exp)
	want := "00-" + traceID + "-" + s.SpanContext.SpanID().String() + "-01"
	if !strings.Contains(out, want) {
		t.Errorf("sampled: the handler's context: %s, want %s", out, want)
	}
	if s.Parent.SpanID().String() != parentID || !s.Parent.IsRemote() {
		t.Errorf("sampled: parent %v", s.Parent)
	}
}
