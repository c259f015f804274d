package main

// NOTE: the operations flags of "jetrpc serve" (#12): the admin listener,
// metrics, tracing, drain, SO_REUSEPORT, the log level and slow calls.
// opsFlags defines and checks them; observability (serve_observe.go) turns
// them into the engine's observers and middleware, admin.go serves them.

import (
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"
)

// traceStdout is the --trace value that writes spans to stdout.
const traceStdout = "stdout"

// opsFlags are the operations flags.
type opsFlags struct {
	admin     string // --admin ADDR; "": off
	metrics   bool
	trace     string // "", "stdout", an OTLP/HTTP URL or host:port
	drain     time.Duration
	reusePort bool
	logLevel  string
	slowCall  time.Duration // 0: off
	logSample int           // --log-sample (serve_policy.go)

	level slog.Level // parsed --log-level
}

// define adds the operations flags to fs.
func (o *opsFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&o.admin, "admin", "", "serve /metrics, /debug/pprof/, /healthz and /readyz on `ADDR` (empty: off)")
	fs.BoolVar(&o.metrics, "metrics", true, "collect Prometheus metrics for --admin's /metrics (needs --admin; --metrics=false: none)")
	fs.StringVar(&o.trace, "trace", "", "trace every call with OpenTelemetry: export spans over OTLP/HTTP to `ENDPOINT`\n(http://host:4318, https://..., or host:port), or \"stdout\" (empty: off)")
	fs.DurationVar(&o.drain, "drain", 0, "on SIGTERM or SIGINT, answer /readyz with 503 and keep serving for `DURATION`\nbefore the listeners close (0: close at once)")
	fs.BoolVar(&o.reusePort, "reuseport", false, "set SO_REUSEPORT on the --tcp and --http listeners, so that several processes share their ports")
	fs.StringVar(&o.logLevel, "log-level", "info", "log `LEVEL`: debug (also one record per call), info, warn or error")
	fs.DurationVar(&o.slowCall, "slow-call", 0, "log a warning for each call that runs longer than `DURATION` (0: off)")
}

// check refuses bad values; given tells which flags were set, stdio
// whether --stdio is on (stdout then carries its messages).
func (o *opsFlags) check(given map[string]bool, stdio bool) error {
	if err := checkAddr("admin", o.admin); err != nil {
		return err
	}
	if o.admin == "" && o.metrics && given["metrics"] {
		return fmt.Errorf("--metrics: needs --admin ADDR, where /metrics is served")
	}
	if err := checkTrace(o.trace, stdio); err != nil {
		return err
	}
	for _, c := range []struct {
		name string
		v    time.Duration
	}{{"drain", o.drain}, {"slow-call", o.slowCall}} {
		if c.v < 0 {
			return fmt.Errorf("--%s %v: must not be negative", c.name, c.v)
		}
	}
	switch strings.ToLower(o.logLevel) {
	case "debug":
		o.level = slog.LevelDebug
	case "info":
		o.level = slog.LevelInfo
	case "warn", "warning":
		o.level = slog.LevelWarn
	case "error":
		o.level = slog.LevelError
	default:
		return fmt.Errorf("--log-level %q: must be debug, info, warn or error", o.logLevel)
	}
	return nil
}

// metricsOn reports whether metrics are collected.
func (o *opsFlags) metricsOn() bool { return o.admin != "" && o.metrics }

// checkTrace accepts "", "stdout", an http(s) URL with a host, or
// host:port.
func checkTrace(v string, stdio bool) error {
	switch {
	case v == "":
		return nil
	case v == traceStdout:
		if stdio {
			return fmt.Errorf("--trace stdout: stdout carries the --stdio messages; export to an OTLP endpoint instead")
		}
		return nil
	case strings.Contains(v, "://"):
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--trace %q: an endpoint URL must be http:// or https:// with a host", v)
		}
		return nil
	}
	if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
		return fmt.Errorf("--trace %q: must be stdout, an OTLP/HTTP URL (http://host:4318) or host:port", v)
	}
	return nil
}
