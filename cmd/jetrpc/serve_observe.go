package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/metrics"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
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
	return o, nil
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
