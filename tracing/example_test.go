package tracing_test

import (
	"context"
	"fmt"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/tracing"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Trace every call of an engine; the parent of this call's span comes
// from the traceparent in its _meta.
func ExampleMiddleware() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())

	e := dispatch.New(nil)
	defer e.Close()
	if err := demo.Register(e); err != nil {
		panic(err)
	}
	if err := e.Use(tracing.Middleware(&tracing.Options{TracerProvider: tp})); err != nil {
		panic(err)
	}
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1,`+
		`"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}`))

	for _, s := range exp.GetSpans() {
		fmt.Println(s.Name, s.SpanKind, "trace", s.SpanContext.TraceID(), "parent", s.Parent.SpanID())
		for _, a := range s.Attributes {
			fmt.Println(" ", a.Key, a.Value.Emit())
		}
	}
	// Output:
	// subtract server trace 4bf92f3577b34da6a3ce929d0e0e4736 parent 00f067aa0ba902b7
	//   rpc.system jsonrpc
	//   rpc.method subtract
	//   rpc.jsonrpc.version 2.0
	//   rpc.jsonrpc.request_id 1
}

// Trace only the calls whose parent is sampled, as a parent-based sampler
// that samples no root does, without starting a span for the others: a
// call with no traceparent costs nothing.
func ExampleOptions_sampledParentsOnly() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.NeverSample())))
	defer tp.Shutdown(context.Background())

	e := dispatch.New(nil)
	defer e.Close()
	if err := demo.Register(e); err != nil {
		panic(err)
	}
	mw := tracing.Middleware(&tracing.Options{TracerProvider: tp, SampledParentsOnly: true})
	if err := e.Use(mw); err != nil {
		panic(err)
	}
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`))
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2,`+
		`"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}`))

	for _, s := range exp.GetSpans() {
		fmt.Println(s.Name, "parent", s.Parent.SpanID())
	}
	// Output:
	// subtract parent 00f067aa0ba902b7
}
