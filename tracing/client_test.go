package tracing_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/tracing"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestClientInjects: a client with tracing.ClientTraceContext carries the
// span of its call's context to the server, over TCP (in _meta), WebSocket
// (in _meta) and HTTP (in the headers): the server's span is its child.
func TestClientInjects(t *testing.T) {
	dial := map[string]func(t *testing.T, e *dispatch.Engine, opts *client.Options) *client.Client{
		"tcp":        dialTCP(frame.NDJSON),
		"tcp-header": dialTCP(frame.Header),
		"tcp-len32":  dialTCP(frame.Len32),
		"ws": func(t *testing.T, e *dispatch.Engine, opts *client.Options) *client.Client {
			c, err := client.DialWebSocket(context.Background(), "ws://"+serveHTTP(t, e)+"/ws", opts)
			if err != nil {
				t.Fatal(err)
			}
			return c
		},
		"http": func(t *testing.T, e *dispatch.Engine, opts *client.Options) *client.Client {
			c, err := client.DialHTTP("http://"+serveHTTP(t, e)+"/", opts)
			if err != nil {
				t.Fatal(err)
			}
			return c
		},
	}
	for name, f := range dial {
		t.Run(name, func(t *testing.T) {
			e, exp := newTraced(t, sdktrace.AlwaysSample())
			c := f(t, e, &client.Options{TraceContext: tracing.ClientTraceContext})
			defer c.Close()

			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
			defer tp.Shutdown(context.Background())
			ctx, parent := tp.Tracer("test").Start(context.Background(), "caller")
			ts, _ := trace.ParseTraceState("k=v")
			ctx = trace.ContextWithSpanContext(ctx, parent.SpanContext().WithTraceState(ts))
			var res int
			if err := c.Call(ctx, "subtract", []int{5, 2}, &res); err != nil || res != 3 {
				t.Fatalf("Call: %v, %v", res, err)
			}
			if err := c.Notify(ctx, "update", []int{1}); err != nil {
				t.Fatal(err)
			}
			parent.End()
			spans := waitSpans(t, exp, 2)
			for _, s := range spans {
				if s.Parent.SpanID() != parent.SpanContext().SpanID() || s.Parent.TraceID() != parent.SpanContext().TraceID() {
					t.Errorf("%s: parent %v, want the caller's %v", s.Name, s.Parent, parent.SpanContext())
				}
				if got := s.SpanContext.TraceState().Get("k"); got != "v" {
					t.Errorf("%s: tracestate k = %q, want v", s.Name, got)
				}
			}

			// Without a span in the context, nothing is sent: a root span.
			if err := c.Call(context.Background(), "subtract", []int{5, 2}, &res); err != nil {
				t.Fatal(err)
			}
			if s := waitSpans(t, exp, 1); s[0].Parent.IsValid() {
				t.Errorf("parent %v, want none", s[0].Parent)
			}
		})
	}
}

func sleep() { time.Sleep(2 * time.Millisecond) }

// waitSpans waits until n spans were exported (a notification's span ends
// after the client returned) and takes them.
func waitSpans(t *testing.T, exp *tracetest.InMemoryExporter, n int) tracetest.SpanStubs {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if spans := exp.GetSpans(); len(spans) >= n {
			exp.Reset()
			if len(spans) != n {
				t.Fatalf("%d spans, want %d", len(spans), n)
			}
			return spans
		}
		sleep()
	}
	t.Fatalf("%d spans, want %d", len(exp.GetSpans()), n)
	return nil
}

func dialTCP(kind frame.Kind) func(t *testing.T, e *dispatch.Engine, opts *client.Options) *client.Client {
	return func(t *testing.T, e *dispatch.Engine, opts *client.Options) *client.Client {
		s := netserver.New(e, &netserver.Options{Logger: slog.New(slog.DiscardHandler)}) // auto framing
		ln := listen(t)
		done := make(chan error, 1)
		go func() { done <- s.Serve(ln) }()
		t.Cleanup(func() { stop(t, s.Shutdown, done) })
		opts.Framing = kind
		c, err := client.Dial(context.Background(), "tcp", ln.Addr().String(), opts)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}
