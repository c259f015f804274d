package compare

// NOTE: Run is three steps: startServers starts jetrpc and the baseline
// (servers.go) or names the target; measure runs a short warm-up against
// each server, then Rounds rounds, the servers' order alternating from round
// to round, and sums what each one did (runOnce); newReport turns the sums
// into the Report (report.go).

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/frame"
)

// Config is one comparison. Run checks only what bench/load checks; the
// caller (the CLI) validates the ranges of its flags.
type Config struct {
	// Target, when set, is the one server measured (host:port; for WS the
	// HTTP listener, path /ws, or a ws:// URL) instead of in-process
	// jetrpc and baseline servers.
	Target    string
	Transport string     // load.TCP, load.HTTP or load.WS
	Framing   frame.Kind // TCP only
	Conns     int
	Pipeline  int           // calls in flight per connection
	Duration  time.Duration // measured time per server, all rounds together
	Rounds    int
	Mix       string // the mix's name, for the report
	Requests  []load.Request
	Timeout   time.Duration // give up on calls unanswered for this long
	// NoWarmup skips the short unmeasured run against each server that
	// comes before the rounds.
	NoWarmup bool
	// Reconnect dials a TCP or WebSocket connection again when the
	// server closes it (see load.Config.Reconnect).
	Reconnect bool
	// TLS, with a Target only, dials it over TLS (see load.Config.TLS).
	TLS *tls.Config
	// Methods are the registrations of the demo methods to measure, one
	// in-process jetrpc server each (see ServerName); nil means
	// demo.Inline alone, demo.Register's.
	Methods []demo.Mode
}

// server is one server under load; inProcess servers also get their CPU
// time and allocations measured.
type server struct {
	name      string
	addr      string
	inProcess bool
}

// sample is what a server did in one or more runs.
type sample struct {
	load.Result
	usage  usage     // of the process while the server was loaded
	rounds []float64 // req/s of each round
}

// ServerName names the in-process jetrpc server whose demo methods are
// registered the way m says: "jetrpc" for demo.Inline (demo.Register's
// registration, the name the reports have always used), "jetrpc-default"
// and "jetrpc-typed" for the others.
func ServerName(m demo.Mode) string {
	if m == demo.Inline {
		return "jetrpc"
	}
	return "jetrpc-" + m.String()
}

// modeOf is the registration of the in-process jetrpc server named name.
func modeOf(name string) (demo.Mode, bool) {
	for _, m := range demo.Modes() {
		if ServerName(m) == name {
			return m, true
		}
	}
	return 0, false
}

// Run starts the servers, measures them and stops them. Progress, when not
// nil, gets a live progress line, rewritten in place (for a terminal).
func Run(ctx context.Context, cfg *Config, progress io.Writer) (*Report, error) {
	if cfg.TLS != nil && cfg.Target == "" {
		return nil, errors.New("compare: TLS needs a Target (the in-process servers are plain)")
	}
	servers, stop, err := startServers(cfg)
	if err != nil {
		return nil, err
	}
	defer stop()
	return measure(ctx, cfg, servers, progress)
}

// measure runs the workload against each server: a short warm-up each, then
// cfg.Rounds rounds, the servers' order alternating from round to round.
func measure(ctx context.Context, cfg *Config, servers []server, progress io.Writer) (*Report, error) {
	per := cfg.Duration / time.Duration(cfg.Rounds)
	samples := make([]sample, len(servers))
	warm := max(min(per/5, time.Second), 100*time.Millisecond)
	for _, s := range servers {
		if cfg.NoWarmup {
			break
		}
		if _, err := runOnce(ctx, cfg, s, warm, nil, "warm-up", progress); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	for round := range cfg.Rounds {
		for j := range servers {
			i := j
			if round%2 == 1 {
				i = len(servers) - 1 - j
			}
			label := fmt.Sprintf("round %d/%d", round+1, cfg.Rounds)
			got, err := runOnce(ctx, cfg, servers[i], per, &samples[i], label, progress)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", servers[i].name, err)
			}
			samples[i].rounds = append(samples[i].rounds, got)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return newReport(cfg, servers, samples), nil
}

// runOnce runs the workload against s for d, adds what it measured to sum
// (when not nil), and returns the run's req/s.
func runOnce(ctx context.Context, cfg *Config, s server, d time.Duration, sum *sample, label string, progress io.Writer) (float64, error) {
	var done atomic.Int64
	lc := load.Config{Addr: s.addr, Transport: cfg.Transport, Framing: cfg.Framing, Conns: cfg.Conns,
		Pipeline: cfg.Pipeline, Duration: d, Requests: cfg.Requests, Timeout: cfg.Timeout, Progress: &done,
		Reconnect: cfg.Reconnect, TLS: cfg.TLS}
	stopProgress := showProgress(progress, s.name+" "+label, &done)
	runtime.GC() // the previous run's garbage is not this one's
	before := readUsage()
	res, err := load.Run(ctx, lc)
	after := readUsage()
	stopProgress()
	if err != nil {
		return 0, err
	}
	if sum != nil {
		sum.Counts.Add(&res.Counts)
		sum.Elapsed += res.Elapsed
		sum.Latency.Merge(&res.Latency)
		sum.usage.add(after.sub(before))
	}
	return res.Rate(), nil
}
