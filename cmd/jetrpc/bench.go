package main

// NOTE: "jetrpc bench" is wiring: parseBench turns the flags into a
// compare.Config (a problem is a usage error, exit 2); bench/compare starts
// the servers, measures them and writes the report (table, --json, --svg).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/bench/compare"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/frame"
)

// benchConfig is what the bench flags ask for.
type benchConfig struct {
	compare.Config
	requests string // file of requests, instead of --mix
	json     bool
	svg      string
	pool     *poolBench // non-nil: measure through client.Pool (bench_pool.go)
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
	if cfg.pool != nil {
		return runPoolBench(ctx, cfg, stdout, stderr)
	}
	rep, err := compare.Run(ctx, &cfg.Config, progressWriter(stderr))
	if err == nil {
		err = writeBenchReport(rep, cfg, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc bench:", err)
		return 1
	}
	for _, s := range rep.Servers {
		if s.Failed > 0 {
			fmt.Fprintf(stderr, "jetrpc bench: %s: %d calls or answers went wrong (errors %d, unanswered %d, dropped %d, mismatched %d, malformed %d)\n",
				s.Name, s.Failed, s.Errors, s.Unanswered, s.Dropped, s.Mismatched, s.Malformed)
		}
		if s.OK == 0 && s.Notifications == 0 {
			return 1
		}
	}
	return 0
}

// writeBenchReport writes the table or --json to stdout, and the --svg file.
func writeBenchReport(rep *compare.Report, cfg *benchConfig, stdout io.Writer) error {
	var err error
	if cfg.json {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteTable(stdout)
	}
	if err == nil && cfg.svg != "" {
		err = os.WriteFile(cfg.svg, rep.SVG(), 0o644)
	}
	return err
}

// parseBench parses and checks the bench flags.
func parseBench(args []string, stderr io.Writer) (*benchConfig, error) {
	fs := flag.NewFlagSet("jetrpc bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &benchConfig{}
	c := &cfg.Config
	var framing, methods string
	var warmup bool
	fs.StringVar(&c.Target, "target", "", "measure the server at `ADDR` instead of in-process jetrpc and baseline servers\n(host:port; for ws the HTTP listener, path /ws, or a ws:// URL);\nA,B,C (comma-separated): measure them as one, through client.Pool")
	var idempotent bool
	var hedgeAfter time.Duration
	var creds credFlags
	fs.BoolVar(&idempotent, "idempotent", false, "with --target: the benchmark's methods are safe to repeat (client.Pool fails them over)")
	fs.DurationVar(&hedgeAfter, "hedge-after", 0, "with --target and --idempotent: send a call unanswered after `DURATION` to a second endpoint too")
	creds.define(fs, true)
	fs.StringVar(&c.Transport, "transport", "tcp", "tcp, http or ws (WebSocket, GET /ws on the HTTP listener)")
	fs.StringVar(&framing, "framing", "ndjson", "TCP framing: ndjson, header or len32")
	fs.IntVar(&c.Conns, "conns", 32, "connections")
	fs.IntVar(&c.Pipeline, "pipeline", 16, "calls in flight per connection")
	fs.DurationVar(&c.Duration, "duration", 6*time.Second, "measured time per server, split over the rounds")
	fs.IntVar(&c.Rounds, "rounds", 3, "rounds; each runs every server once, in alternating order")
	fs.StringVar(&methods, "methods", "inline,default,typed", "how the in-process jetrpc servers register the demo methods, one server each:\n"+
		"inline (raw handlers marked Inline, as jetrpc serve), default (the same, plain Register),\ntyped (dispatch.Typed handlers, plain Register)")
	fs.StringVar(&c.Mix, "mix", "small", `requests: cases of `+strings.Join(load.CaseNames(), ", ")+`, or all, with optional weights ("small=8,batch10=1")`)
	fs.StringVar(&cfg.requests, "requests", "", "read the requests from `FILE`, one per line, instead of --mix")
	fs.DurationVar(&c.Timeout, "timeout", 5*time.Second, "give up on calls unanswered for this long")
	fs.BoolVar(&c.Reconnect, "reconnect", false, "tcp, ws: dial a connection again when the server closes it, and go on\n(its calls in flight count as dropped)")
	fs.BoolVar(&warmup, "warmup", true, "run a short unmeasured warm-up against each server first")
	fs.BoolVar(&cfg.json, "json", false, "print the results as JSON")
	fs.StringVar(&cfg.svg, "svg", "", "also write a bar chart of req/s to `FILE`")
	var tlsOn bool
	var tlsFlags tlsClientFlags
	fs.BoolVar(&tlsOn, "tls", false, "dial --target over TLS (TCP, HTTPS, WSS; on with any --tls-* flag)")
	tlsFlags.define(fs, true)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: jetrpc bench [flags]\n\nWith no flags: jetrpc (its demo methods registered inline, default and typed) and the\nencoding/json baseline, in this process on loopback, alternating.\n\n")
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
	c.NoWarmup = !warmup
	var err error
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	tlsOn = tlsOn || strings.HasPrefix(c.Target, "wss://")
	if name := tlsFlags.set(given); tlsOn || name != "" {
		if name == "" {
			name = "--tls"
		}
		if c.Target == "" {
			return fail("%s: needs --target (the in-process servers are plain)", name)
		}
		if c.TLS, err = tlsFlags.config(); err != nil {
			return fail("%v", err)
		}
	}
	if given["methods"] && c.Target != "" {
		return fail("--methods: for the in-process servers, not with --target")
	}
	if c.Methods, err = parseMethods(methods); err != nil {
		return fail("--methods %s: %v", methods, err)
	}
	if c.Reconnect && c.Transport == load.HTTP {
		return fail("--reconnect: for tcp and ws (an HTTP client reconnects by itself)")
	}
	if c.Framing, err = frame.ParseKind(framing); err != nil || c.Framing == frame.Auto {
		return fail("--framing %s: must be ndjson, header or len32", framing)
	}
	switch {
	case c.Transport != load.TCP && c.Transport != load.HTTP && c.Transport != load.WS:
		return fail("--transport %s: must be tcp, http or ws", c.Transport)
	case c.Conns < 1 || c.Conns > 10000:
		return fail("--conns %d: must be 1..10000", c.Conns)
	case c.Pipeline < 1 || c.Pipeline > 10000:
		return fail("--pipeline %d: must be 1..10000", c.Pipeline)
	case c.Duration <= 0:
		return fail("--duration %v: must be positive", c.Duration)
	case c.Rounds < 1:
		return fail("--rounds %d: must be at least 1", c.Rounds)
	case c.Timeout <= 0:
		return fail("--timeout %v: must be positive", c.Timeout)
	}
	if strings.Contains(c.Target, ",") || idempotent || hedgeAfter != 0 || creds.given() {
		switch {
		case c.Target == "":
			return fail("--idempotent, --hedge-after and the credential flags need --target")
		case hedgeAfter < 0 || hedgeAfter > 0 && !idempotent:
			return fail("--hedge-after %v: needs --idempotent and a positive duration", hedgeAfter)
		case given["mix"] && c.Mix != "small" || cfg.requests != "" || c.Reconnect || cfg.svg != "":
			return fail("--mix, --requests, --reconnect and --svg: not with a pool (--target A,B,C, --idempotent, --hedge-after, credentials)")
		}
		cfg.pool = &poolBench{idempotent: idempotent, hedgeAfter: hedgeAfter}
		for _, t := range strings.Split(c.Target, ",") {
			if t = strings.TrimSpace(t); t != "" {
				cfg.pool.targets = append(cfg.pool.targets, t)
			}
		}
		if err := creds.apply(&cfg.pool.creds); err != nil {
			return fail("%v", err)
		}
		return cfg, nil
	}
	if cfg.requests != "" {
		c.Requests, err = load.ReadRequestFile(cfg.requests)
		c.Mix = "file " + cfg.requests
	} else {
		c.Requests, err = load.Mix(c.Mix)
	}
	if err != nil {
		return fail("%v", err)
	}
	return cfg, nil
}

// parseMethods parses --methods: registrations (demo.Mode names) separated
// by commas, each once.
func parseMethods(s string) ([]demo.Mode, error) {
	var modes []demo.Mode
	for name := range strings.SplitSeq(s, ",") {
		m, err := demo.ParseMode(strings.TrimSpace(name))
		if err != nil {
			return nil, errors.New("must be inline, default or typed, separated by commas")
		}
		if slices.Contains(modes, m) {
			return nil, fmt.Errorf("%s given twice", m)
		}
		modes = append(modes, m)
	}
	return modes, nil
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
