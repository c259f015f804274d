package main

import (
	"context"
	"io"
	"log/slog"
	"net/url"
	"strings"

	"github.com/jetrpc/jetrpc/accesslog"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/metrics"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/tracing"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// observability is what the operations flags add to the engine and the
// servers: metrics (with --admin), tracing (--trace), access and slow-call
// logs (--log-level debug, --slow-call).
type observability struct {
	reg      *prometheus.Registry // nil: metrics off
	engine   []dispatch.Observer  // the engine's observers
	conns    netserver.Observer   // the servers' observer; nil: none
	use      []dispatch.Middleware
	shutdown []func(context.Context) error // flush exporters at exit
}

// newObservability sets up what ops asks for; stdout is where --trace
// stdout writes.
func newObservability(ops *opsFlags, log *slog.Logger, stdout io.Writer) (*observability, error) {
	o := &observability{}
	if ops.metricsOn() {
		o.reg = prometheus.NewRegistry()
		o.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		m, err := metrics.New(o.reg, nil)
		if err != nil {
			return nil, err
		}
		o.engine = append(o.engine, m)
		o.conns = m
	}
	// The per-call record is a Debug one; without it and without a slow-call
	// threshold the engine gets no access-log observer at all.
	if ops.level <= slog.LevelDebug || ops.slowCall > 0 || ops.logSample > 0 {
		o.engine = append(o.engine, accesslog.New(log, &accesslog.Options{SlowCall: ops.slowCall, Sample: ops.logSample}))
	}
	if ops.trace != "" {
		tp, err := newTracerProvider(ops.trace, stdout)
		if err != nil {
			return nil, err
		}
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("tracing", "err", err) }))
		o.use = append(o.use, tracing.Middleware(&tracing.Options{TracerProvider: tp}))
		o.shutdown = append(o.shutdown, tp.Shutdown)
	}
	return o, nil
}

// newTracerProvider returns a provider that batches spans to the --trace
// target: stdout, an OTLP/HTTP URL (one without a path gets /v1/traces) or
// host:port (plain HTTP, /v1/traces).
func newTracerProvider(target string, stdout io.Writer) (*sdktrace.TracerProvider, error) {
	var exp sdktrace.SpanExporter
	var err error
	switch {
	case target == traceStdout:
		exp, err = stdouttrace.New(stdouttrace.WithWriter(stdout))
	case strings.Contains(target, "://"):
		u, _ := url.Parse(target) // checked by checkTrace
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/traces"
		}
		exp, err = otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(u.String()))
	default:
		exp, err = otlptracehttp.New(context.Background(), otlptracehttp.WithEndpoint(target), otlptracehttp.WithInsecure())
	}
	if err != nil {
		return nil, err
	}
	res := resource.NewSchemaless(attribute.String("service.name", "jetrpc"))
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}

// observer is the engine's Observer: nil when there is none, so that the
// engine pays nothing.
func (o *observability) observer() dispatch.Observer {
	switch len(o.engine) {
	case 0:
		return nil
	case 1:
		return o.engine[0]
	}
	return dispatch.Observers(o.engine...)
}

// close flushes the exporters.
func (o *observability) close(ctx context.Context, log *slog.Logger) {
	for _, f := range o.shutdown {
		if err := f(ctx); err != nil {
			log.Warn("flushing traces failed", "err", err)
		}
	}
}
