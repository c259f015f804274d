package main

// NOTE: bench is four steps: parseBench turns flags into a benchConfig (a
// problem is a usage error, exit 2); startBenchServers starts jetrpc and the
// encoding/json baseline on loopback (or names the --target); measure runs
// the same load against each server, alternating, round after round, and
// sums what each one did; the report (table, --json, --svg) is
// bench_report.go.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/frame"
)

// benchConfig is what the bench flags ask for.
type benchConfig struct {
	target    string
	transport string
	framing   frame.Kind
	conns     int
	pipeline  int
	duration  time.Duration // per server, all rounds together
	rounds    int
	mix       string
	requests  string // file of requests, instead of mix
	timeout   time.Duration
	json      bool
	svg       string
	reqs      []load.Request
}

// runBench runs "jetrpc bench".
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseBench(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	}
	servers, stop, err := startBenchServers(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc bench:", err)
		return 1
	}
	defer stop()
	rep, err := measure(ctx, cfg, servers, progressWriter(stderr))
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc bench:", err)
		return 1
	}
	if cfg.json {
		err = rep.writeJSON(stdout)
	} else {
		err = rep.writeTable(stdout)
	}
	if err == nil && cfg.svg != "" {
		err = os.WriteFile(cfg.svg, rep.svg(), 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc bench:", err)
		return 1
	}
	for _, s := range rep.Servers {
		if s.Failed > 0 {
			fmt.Fprintf(stderr, "jetrpc bench: %s: %d calls or answers went wrong (errors %d, unanswered %d, mismatched %d, malformed %d)\n",
				s.Name, s.Failed, s.Errors, s.Unanswered, s.Mismatched, s.Malformed)
		}
		if s.OK == 0 && s.Notifications == 0 {
			return 1
		}
	}
	return 0
}

// parseBench parses and checks the bench flags.
func parseBench(args []string, stderr io.Writer) (*benchConfig, error) {
	fs := flag.NewFlagSet("jetrpc bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &benchConfig{}
	var framing string
	fs.StringVar(&cfg.target, "target", "", "measure the server at `ADDR` instead of in-process jetrpc and baseline servers\n(host:port; for ws the HTTP listener, path /ws, or a ws:// URL)")
	fs.StringVar(&cfg.transport, "transport", "tcp", "tcp, http or ws (WebSocket, GET /ws on the HTTP listener)")
	fs.StringVar(&framing, "framing", "ndjson", "TCP framing: ndjson, header or len32")
	fs.IntVar(&cfg.conns, "conns", 32, "connections")
	fs.IntVar(&cfg.pipeline, "pipeline", 16, "calls in flight per connection")
	fs.DurationVar(&cfg.duration, "duration", 6*time.Second, "measured time per server, split over the rounds")
	fs.IntVar(&cfg.rounds, "rounds", 3, "rounds; each runs every server once, in alternating order")
	fs.StringVar(&cfg.mix, "mix", "small", `requests: cases of `+strings.Join(load.CaseNames(), ", ")+`, or all, with optional weights ("small=8,batch10=1")`)
	fs.StringVar(&cfg.requests, "requests", "", "read the requests from `FILE`, one per line, instead of --mix")
	fs.DurationVar(&cfg.timeout, "timeout", 5*time.Second, "give up on calls unanswered for this long")
	fs.BoolVar(&cfg.json, "json", false, "print the results as JSON")
	fs.StringVar(&cfg.svg, "svg", "", "also write a bar chart of req/s to `FILE`")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: jetrpc bench [flags]\n\nWith no flags: jetrpc and the encoding/json baseline, in this process on loopback, alternating.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	fail := func(format string, a ...any) (*benchConfig, error) {
		err := fmt.Errorf(format, a...)
		fmt.Fprintln(stderr, "jetrpc bench:", err)
		return nil, err
	}
	if fs.NArg() > 0 {
		return fail("unexpected arguments %q", fs.Args())
	}
	var err error
	if cfg.framing, err = frame.ParseKind(framing); err != nil || cfg.framing == frame.Auto {
		return fail("--framing %s: must be ndjson, header or len32", framing)
	}
	switch {
	case cfg.transport != load.TCP && cfg.transport != load.HTTP && cfg.transport != load.WS:
		return fail("--transport %s: must be tcp, http or ws", cfg.transport)
	case cfg.conns < 1 || cfg.conns > 10000:
		return fail("--conns %d: must be 1..10000", cfg.conns)
	case cfg.pipeline < 1 || cfg.pipeline > 10000:
		return fail("--pipeline %d: must be 1..10000", cfg.pipeline)
	case cfg.duration <= 0:
		return fail("--duration %v: must be positive", cfg.duration)
	case cfg.rounds < 1:
		return fail("--rounds %d: must be at least 1", cfg.rounds)
	case cfg.timeout <= 0:
		return fail("--timeout %v: must be positive", cfg.timeout)
	}
	if cfg.requests != "" {
		cfg.reqs, err = load.ReadRequestFile(cfg.requests)
		cfg.mix = "file " + cfg.requests
	} else {
		cfg.reqs, err = load.Mix(cfg.mix)
	}
	if err != nil {
		return fail("%v", err)
	}
	return cfg, nil
}

// benchServer is one server under load; inProcess servers also get their
// CPU time and allocations measured.
type benchServer struct {
	name      string
	addr      string
	inProcess bool
}

// sample is what a server did in one or more runs.
type sample struct {
	load.Result
	cpu          time.Duration // process CPU (user+system)
	allocBytes   uint64
	allocObjects uint64
	rounds       []float64 // req/s of each round
}

// measure runs the workload against each server: a short warm-up each, then
// cfg.rounds rounds, the servers' order alternating from round to round.
func measure(ctx context.Context, cfg *benchConfig, servers []benchServer, progress io.Writer) (*benchReport, error) {
	per := cfg.duration / time.Duration(cfg.rounds)
	samples := make([]sample, len(servers))
	warm := max(min(per/5, time.Second), 100*time.Millisecond)
	for _, s := range servers {
		if _, err := runOnce(ctx, cfg, s, warm, nil, "warm-up", progress); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	for round := range cfg.rounds {
		for j := range servers {
			i := j
			if round%2 == 1 {
				i = len(servers) - 1 - j
			}
			label := fmt.Sprintf("round %d/%d", round+1, cfg.rounds)
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
func runOnce(ctx context.Context, cfg *benchConfig, s benchServer, d time.Duration, sum *sample, label string, progress io.Writer) (float64, error) {
	var done atomic.Int64
	lc := load.Config{Addr: s.addr, Transport: cfg.transport, Framing: cfg.framing, Conns: cfg.conns,
		Pipeline: cfg.pipeline, Duration: d, Requests: cfg.reqs, Timeout: cfg.timeout, Progress: &done}
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
		sum.cpu += after.cpu - before.cpu
		sum.allocBytes += after.allocBytes - before.allocBytes
		sum.allocObjects += after.allocObjects - before.allocObjects
	}
	return res.Rate(), nil
}

// procUsage is the process's CPU time and heap allocations so far.
type procUsage struct {
	cpu                      time.Duration
	allocBytes, allocObjects uint64
}

func readUsage() procUsage {
	var u procUsage
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		u.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	ms := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}}
	metrics.Read(ms)
	if ms[0].Value.Kind() == metrics.KindUint64 {
		u.allocBytes = ms[0].Value.Uint64()
	}
	if ms[1].Value.Kind() == metrics.KindUint64 {
		u.allocObjects = ms[1].Value.Uint64()
	}
	return u
}

// progressWriter returns stderr when it is a terminal, else nil: the live
// progress line is for people watching, not for logs.
func progressWriter(stderr io.Writer) io.Writer {
	w := stderr
	if lw, ok := stderr.(*lockedWriter); ok {
		w = lw.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return stderr
}

// showProgress prints "label: N calls, R req/s, Ts" on w four times a
// second until the returned stop is called, which clears the line.
func showProgress(w io.Writer, label string, done *atomic.Int64) (stop func()) {
	if w == nil {
		return func() {}
	}
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		last, lastT := int64(0), start
		for {
			select {
			case <-quit:
				fmt.Fprint(w, "\r\033[K")
				return
			case now := <-tick.C:
				n := done.Load()
				rate := float64(n-last) / now.Sub(lastT).Seconds()
				last, lastT = n, now
				fmt.Fprintf(w, "\r\033[K%s: %d calls, %.0f req/s, %.1fs", label, n, rate, now.Sub(start).Seconds())
			}
		}
	}()
	return func() { close(quit); <-finished }
}
