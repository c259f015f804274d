package main

import (
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// newAdmin returns the --admin server: /metrics (when reg is not nil),
// /debug/pprof/, /healthz and /readyz (reporting health). None of these is
// ever on the public listeners.
func newAdmin(health *netserver.Health, reg *prometheus.Registry, log *slog.Logger) *http.Server {
	mux := http.NewServeMux()
	mux.Handle(nethttp.DefaultHealthPath, nethttp.LiveHandler(health))
	mux.Handle(nethttp.DefaultReadyPath, nethttp.ReadyHandler(health))
	if reg != nil {
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	}
	mux.HandleFunc("/debug/pprof/", pprof.Index) // and the named profiles: heap, goroutine, ...
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// no WriteTimeout: a CPU profile or a trace takes as long as asked
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
}

// callsTotal sums jetrpc_calls_total in reg: the calls and notifications
// the engine handled.
func callsTotal(reg *prometheus.Registry) (float64, bool) {
	mfs, err := reg.Gather()
	if err != nil {
		return 0, false
	}
	for _, mf := range mfs {
		if mf.GetName() != "jetrpc_calls_total" {
			continue
		}
		var n float64
		for _, m := range mf.GetMetric() {
			n += m.GetCounter().GetValue()
		}
		return n, true
	}
	return 0, true // registered but no method called yet
}
