package main

// NOTE: serve is three steps: parseServe turns flags into a serveConfig (any
// problem is a usage error, exit 2); listen binds the listeners and prints
// one "listening" line for each (a failure is a runtime error, exit 1);
// server.run serves until a signal, the end of stdin (--stdio) or a failure,
// then shuts down gracefully: on a signal it first drains for --drain
// (/readyz 503, still serving), then the public servers shut down, then the
// admin listener. The operations flags are in serve_ops.go.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/a2a"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/pool"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// shutdownGrace is how long a shutdown waits for calls in flight before it
// cancels their contexts.
const shutdownGrace = 10 * time.Second

// serveConfig is what the serve flags ask for.
type serveConfig struct {
	policy     policyFlags // --api, --method-timeout, ... (serve_policy.go)
	tcp, http  string
	framing    frame.Kind
	stdio      bool
	workers    int
	maxMessage int
	// compressMin is --compress-min: 0 turns compression off.
	compressMin int
	maxBatch    int
	maxConns    int
	sec         securityFlags // security.go
	limits      limitFlags
	ops         opsFlags
	tls         tlsServeFlags // tls.go
	mcp         mcpFlags      // mcp.go
	browser     browserFlags  // serve_browser.go

	docs map[string]func() ([]byte, error) // GET endpoints of --http (discover.go)

	acp acpFlags // acp.go
	ipc ipcFlags // ipc.go
	a2a a2aFlags // a2a.go
}

// limitFlags are the flags of the limits beyond the original ones. A
// timeout of 0 means none; check refuses negative values.
type limitFlags struct {
	maxDepth     int
	maxBatchResp int
	maxResp      int
	batchFanOut  int
	idleWorkers  int
	maxInFlight  int
	maxPending   int
	callTimeout  time.Duration
	readTimeout  time.Duration
	idleTimeout  time.Duration
	writeTimeout time.Duration
}

// define adds the limit flags to fs.
func (l *limitFlags) define(fs *flag.FlagSet) {
	fs.IntVar(&l.maxDepth, "max-depth", decode.DefaultMaxDepth, "deepest nesting of a message")
	fs.IntVar(&l.maxBatchResp, "max-batch-response", dispatch.DefaultMaxBatchResponse,
		"most `BYTES` of the responses of one batch; calls over it get -32000")
	fs.IntVar(&l.maxResp, "max-response", dispatch.DefaultMaxResponse,
		"most `BYTES` of one response held in memory; a call over it gets -32000 (a streamed result is not held)")
	fs.IntVar(&l.batchFanOut, "batch-fanout", dispatch.DefaultBatchFanOut,
		"most members of one batch running on workers at once")
	fs.IntVar(&l.idleWorkers, "idle-workers", pool.DefaultKeep,
		"idle worker goroutines kept for 10 s; more idle ones exit after 100 ms (0: none)")
	fs.IntVar(&l.maxInFlight, "max-inflight", netserver.DefaultMaxInFlight,
		"most calls of one TCP/stdio connection running at once")
	fs.IntVar(&l.maxPending, "max-pending", netserver.DefaultMaxPending,
		"most `BYTES` one TCP/stdio connection holds in flight (unwritten responses, running messages)")
	fs.DurationVar(&l.callTimeout, "call-timeout", 0,
		"cancel a call of a non-inline method after `DURATION` and answer -32003 (0: no limit)")
	fs.DurationVar(&l.readTimeout, "read-timeout", netserver.DefaultReadTimeout,
		"a started message (HTTP request) must arrive within `DURATION` (0: no limit)")
	fs.DurationVar(&l.idleTimeout, "idle-timeout", netserver.DefaultIdleTimeout,
		"close a connection idle for `DURATION` (0: never)")
	fs.DurationVar(&l.writeTimeout, "write-timeout", netserver.DefaultWriteTimeout,
		"drop a connection whose writes make no progress for `DURATION` (0: no limit)")
}

// check refuses values out of range.
func (l *limitFlags) check() error {
	for _, c := range []struct {
		name string
		v    int
	}{{"max-depth", l.maxDepth}, {"max-batch-response", l.maxBatchResp}, {"max-response", l.maxResp}, {"batch-fanout", l.batchFanOut},
		{"max-inflight", l.maxInFlight}, {"max-pending", l.maxPending}} {
		if c.v < 1 {
			return fmt.Errorf("--%s %d: must be at least 1", c.name, c.v)
		}
	}
	if l.idleWorkers < 0 {
		return fmt.Errorf("--idle-workers %d: must not be negative (0: none)", l.idleWorkers)
	}
	for _, c := range []struct {
		name string
		v    time.Duration
	}{{"call-timeout", l.callTimeout}, {"read-timeout", l.readTimeout}, {"idle-timeout", l.idleTimeout}, {"write-timeout", l.writeTimeout}} {
		if c.v < 0 {
			return fmt.Errorf("--%s %v: must not be negative (0: no limit)", c.name, c.v)
		}
	}
	return nil
}

// engineOptions returns the engine's options for these flags.
func (l *limitFlags) engineOptions(o dispatch.Options) *dispatch.Options {
	o.MaxDepth, o.MaxBatchResponse, o.CallTimeout = l.maxDepth, l.maxBatchResp, l.callTimeout
	o.BatchFanOut, o.IdleWorkers, o.MaxResponse = l.batchFanOut, l.idleWorkers, l.maxResp
	if l.idleWorkers == 0 {
		o.IdleWorkers = -1 // none (0 is the default in Options)
	}
	return &o
}

// serverOptions returns the servers' options for these flags.
func (l *limitFlags) serverOptions(o netserver.Options) *netserver.Options {
	o.MaxInFlight, o.MaxPending = l.maxInFlight, l.maxPending
	o.ReadTimeout, o.IdleTimeout, o.WriteTimeout = orNone(l.readTimeout), orNone(l.idleTimeout), orNone(l.writeTimeout)
	return &o
}

// orNone maps a flag's 0 (no limit) to netserver's negative (disabled).
func orNone(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// serve runs "jetrpc serve".
func serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseServe(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.ops.level}))
	cfg.ops.logSample = cfg.policy.sample // --log-sample (serve_policy.go)
	obs, err := newObservability(&cfg.ops, log, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc serve:", err)
		return 1
	}
	eopts := cfg.limits.engineOptions(dispatch.Options{MaxBatch: cfg.maxBatch, MaxWorkers: cfg.workers,
		Logger: log, Observer: obs.observer()})
	cfg.policy.engineOptions(eopts) // serve_policy.go
	e := dispatch.New(eopts)
	defer e.Close()
	for _, mw := range obs.use {
		if err = e.Use(mw); err != nil {
			break
		}
	}
	if err == nil {
		err = cfg.sec.use(e) // the methods of --tokens' identities (security.go)
	}
	if err == nil {
		err = registerDemo(e, cfg) // with rpc.discover (discover.go)
	}
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc serve:", err)
		return 1
	}
	if err := cfg.policy.checkMethods(e); err != nil { // a usage error (serve_policy.go)
		fmt.Fprintf(stderr, "jetrpc serve: %v\nRun \"jetrpc serve -h\" for usage.\n", err)
		return 2
	}
	s := newServer(e, cfg, log, obs)
	defer cfg.tls.watch(log)() // SIGHUP reloads the certificate
	if err := s.listen(ctx, cfg, stderr); err != nil {
		fmt.Fprintln(stderr, "jetrpc serve:", err)
		return 1
	}
	return s.run(ctx, stdin, stdout)
}

// parseServe parses and checks the serve flags. Problems are reported on
// stderr; the error is flag.ErrHelp for -h.
func parseServe(args []string, stderr io.Writer) (*serveConfig, error) {
	fs := flag.NewFlagSet("jetrpc serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &serveConfig{}
	var framing string
	cfg.defineListeners(fs, &framing)
	cfg.policy.define(fs) // serve_policy.go
	cfg.acp.define(fs)
	cfg.mcp.define(fs)
	cfg.a2a.define(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	err := cfg.check(fs, framing)
	if err != nil {
		fmt.Fprintf(stderr, "jetrpc serve: %v\nRun \"jetrpc serve -h\" for usage.\n", err)
	}
	return cfg, err
}

// defineListeners adds the flags jetrpc serve shares with jetrpc proxy:
// the listeners and their limits, operations, security, TLS, IPC and the
// browser checks.
func (cfg *serveConfig) defineListeners(fs *flag.FlagSet, framing *string) {
	fs.StringVar(&cfg.tcp, "tcp", "127.0.0.1:7070", "serve raw TCP on `ADDR` (empty: off)")
	fs.StringVar(&cfg.http, "http", "127.0.0.1:8080", "serve HTTP on `ADDR` (empty: off)")
	fs.StringVar(framing, "framing", "auto", "framing of TCP and stdio: auto, ndjson, header or len32")
	fs.BoolVar(&cfg.stdio, "stdio", false, "serve on stdin/stdout, exit at EOF; TCP and HTTP then only if given")
	fs.IntVar(&cfg.workers, "workers", 0, "most worker goroutines for blocking calls and batch members (0: 16384)")
	fs.IntVar(&cfg.maxMessage, "max-message", frame.DefaultMaxMessage, "largest message in `BYTES`")
	fs.IntVar(&cfg.maxBatch, "max-batch", 1000, "most members of a batch")
	fs.IntVar(&cfg.compressMin, "compress-min", netserver.DefaultCompressMin,
		"compress HTTP responses and WebSocket messages of at least `BYTES` (0: off)")
	fs.IntVar(&cfg.maxConns, "max-conns", 0, "most open connections per listener (0: no limit)")
	cfg.limits.define(fs)
	cfg.ops.define(fs)
	cfg.sec.define(fs)
	cfg.tls.define(fs)
	cfg.ipc.define(fs)
	cfg.browser.define(fs)
}

// check validates the parsed flags and fills in what derives from them.
func (cfg *serveConfig) check(fs *flag.FlagSet, framing string) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	kind, err := frame.ParseKind(framing)
	if err != nil {
		return fmt.Errorf("--framing: %v", err)
	}
	cfg.framing = kind
	if err := cfg.limits.check(); err != nil {
		return err
	}
	if err := cfg.policy.check(); err != nil { // serve_policy.go
		return err
	}
	for _, c := range []struct {
		name string
		v    int
		min  int
	}{{"workers", cfg.workers, 0}, {"max-message", cfg.maxMessage, 1}, {"max-batch", cfg.maxBatch, 1}, {"max-conns", cfg.maxConns, 0}, {"compress-min", cfg.compressMin, 0}} {
		if c.v < c.min {
			return fmt.Errorf("--%s %d: must be at least %d", c.name, c.v, c.min)
		}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if cfg.stdio { // listeners only when asked for explicitly
		cfg.tcp, cfg.http = keepIf(given["tcp"], cfg.tcp), keepIf(given["http"], cfg.http)
	}
	if err := cfg.acp.check(given, cfg.stdio); err != nil {
		return err
	}
	if err := checkAddr("tcp", cfg.tcp); err != nil {
		return err
	}
	if err := checkAddr("http", cfg.http); err != nil {
		return err
	}
	if err := cfg.tls.check(cfg.tcp != "" || cfg.http != ""); err != nil {
		return err
	}
	if err := cfg.mcp.check(cfg.http, cfg.stdio); err != nil {
		return err
	}
	if err := cfg.a2a.check(cfg.http); err != nil {
		return err
	}
	if err := cfg.browser.check(cfg.http); err != nil {
		return err
	}
	if err := cfg.sec.check(); err != nil {
		return err
	}
	return cfg.ops.check(given, cfg.stdio)
}

func keepIf(keep bool, s string) string {
	if keep {
		return s
	}
	return ""
}

// checkAddr rejects an address net.Listen could never bind.
func checkAddr(flagName, addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err == nil && port != "" {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return fmt.Errorf("--%s %q: %v", flagName, addr, err)
	}
	return nil
}

// server is the running "jetrpc serve".
type server struct {
	log     *slog.Logger
	raw     *netserver.Server   // TCP and stdio; nil if neither
	http    *nethttp.HTTPServer // nil without --http
	admin   *http.Server        // nil without --admin
	acp     *netserver.Server   // stdin/stdout with --acp (acp.go)
	acpE    *dispatch.Engine    // its engine
	ipc     *ipcServe           // nil without --ipc (ipc.go)
	mcp     *mcpServe           // nil without --mcp (mcp.go)
	a2a     *a2a.Server         // nil without --a2a (a2a.go)
	obs     *observability
	health  *netserver.Health // /readyz of the HTTP and admin listeners
	drain   time.Duration
	stdio   bool
	tcpLn   net.Listener
	webLn   net.Listener
	adminLn net.Listener
}

func newServer(e *dispatch.Engine, cfg *serveConfig, log *slog.Logger, obs *observability) *server {
	s := &server{log: log, obs: obs, health: new(netserver.Health), drain: cfg.ops.drain, stdio: cfg.stdio}
	opts := cfg.limits.serverOptions(netserver.Options{Framing: cfg.framing, MaxMessage: cfg.maxMessage, MaxConns: cfg.maxConns,
		Logger: log, Observer: obs.conns, Health: s.health, Documents: cfg.docs})
	opts.Methods = cfg.policy.methodSets(e) // --api and the rest (serve_policy.go)
	if opts.CompressMin = cfg.compressMin; cfg.compressMin == 0 {
		opts.CompressMin = -1 // --compress-min 0: off
	}
	if set := opts.Methods[netserver.HTTP]; set != nil && cfg.policy.svc != nil {
		opts.Documents["/openrpc.json"] = func() ([]byte, error) { return cfg.policy.svc.DocumentFor(set) }
	}
	g := cfg.sec.options() // security.go
	if len(cfg.policy.costs) > 0 {
		g.Cost = e.MessageCost // an HTTP body priced by --method-cost (one parse more)
	}
	cfg.browser.apply(opts, g)          // serve_browser.go
	cfg.mcp.auth.apply(g)               // --mcp-auth-issuer (mcp_auth.go)
	cfg.a2a.applyAuth(&cfg.mcp.auth, g) // the card public (a2a_auth.go)
	opts.Guard = guard.New(g)           // one for every listener
	s.mcp = newMCP(cfg, log, opts)
	s.a2a = newA2A(cfg, log, opts)
	if cfg.tcp != "" || cfg.stdio {
		s.raw = netserver.New(e, cfg.tls.options(opts))
	}
	if cfg.acp.on {
		s.acp, s.acpE = newACP(cfg, log, dispatch.Options{MaxBatch: cfg.maxBatch, MaxWorkers: cfg.workers,
			Logger: log, Observer: obs.observer()}, opts)
	}
	s.ipc = newIPC(e, cfg, opts)
	if cfg.http != "" {
		s.http = nethttp.New(e, cfg.tls.options(opts))
	}
	if cfg.ops.admin != "" {
		s.admin = newAdmin(s.health, obs.reg, log)
	}
	return s
}

// listen binds the listeners asked for and prints "listening tcp ADDR",
// "listening http ADDR" and "listening admin ADDR" with the bound
// addresses, then one line per feature URL ("mcp http://ADDR/mcp").
func (s *server) listen(ctx context.Context, cfg *serveConfig, stderr io.Writer) error {
	lo := &netserver.ListenOptions{ReusePort: cfg.ops.reusePort}
	for _, l := range []struct {
		name, addr string
		ln         *net.Listener
		opts       *netserver.ListenOptions
	}{{"tcp", cfg.tcp, &s.tcpLn, lo}, {"http", cfg.http, &s.webLn, lo}, {"admin", cfg.ops.admin, &s.adminLn, nil}} {
		if l.addr == "" {
			continue
		}
		ln, err := netserver.Listen(ctx, l.addr, l.opts)
		if err != nil {
			s.closeListeners()
			return fmt.Errorf("--%s: %v", l.name, err)
		}
		*l.ln = ln
		fmt.Fprintf(stderr, "listening %s %s\n", l.name, ln.Addr())
	}
	if err := s.ipc.listen(stderr); err != nil {
		s.closeListeners()
		return err
	}
	if s.webLn != nil {
		scheme := "http"
		if cfg.tls.cert != "" {
			scheme = "https"
		}
		if err := cfg.mcp.auth.start(scheme, s.webLn.Addr().String(), s.log); err != nil { // mcp_auth.go
			s.closeListeners()
			return err
		}
		startA2AAuth(s.a2a, &cfg.mcp.auth, s.log) // the card declares OAuth (a2a_auth.go)
	}
	s.setHints(cfg)              // serve_urls.go
	s.printFeatures(cfg, stderr) // serve_urls.go
	return nil
}

func (s *server) closeListeners() {
	for _, ln := range []net.Listener{s.tcpLn, s.webLn, s.adminLn} {
		if ln != nil {
			ln.Close()
		}
	}
}

// run serves until ctx is cancelled (exit 0), stdin ends with --stdio (exit
// 0) or a server fails (exit 1), then shuts down.
func (s *server) run(ctx context.Context, stdin io.Reader, stdout io.Writer) int {
	done := make(chan error, 5) // one per serving goroutine
	n := 0
	start := func(serve func() error) {
		n++
		go func() { done <- serve() }()
	}
	if s.acp != nil { // --acp: stdin/stdout serve the ACP agent
		start(func() error { return s.acp.ServeStdio(interruptible(stdin), stdout) })
		s.stdio = false
	}
	if s.ipc != nil {
		start(s.ipc.serve)
	}
	if s.tcpLn != nil {
		start(func() error { return s.raw.Serve(s.tcpLn) })
	}
	if s.webLn != nil {
		start(func() error { return s.http.Serve(s.webLn) })
	}
	if s.stdio {
		stdio := s.raw
		if s.mcp != nil && s.mcp.stdio != nil { // --mcp --stdio: MCP instead of JSON-RPC
			stdio = s.mcp.stdio
		}
		start(func() error { return stdio.ServeStdio(interruptible(stdin), stdout) })
	}
	if s.adminLn != nil {
		start(func() error { return s.admin.Serve(s.adminLn) })
	}
	code := 0
	select {
	case <-ctx.Done():
		if s.drain > 0 {
			s.log.Info("draining", "for", s.drain)
			s.health.Drain()
			time.Sleep(s.drain) // a second signal ends the process at once (main)
		}
		s.log.Info("shutting down")
	case err := <-done: // nil: stdin ended
		n--
		if err != nil {
			s.log.Error("serving failed", "err", err)
			code = 1
		}
	}
	s.shutdown()
	s.wait(done, n)
	s.stopped()
	return code
}

// interruptible returns a reader of r's bytes whose reads Shutdown can stop
// (netserver closes it): a read from a blocking os.Stdin cannot be
// interrupted, so a shutdown would wait out its grace for the next byte. The
// copying goroutine ends when r ends or, after a close, with r's next read.
func interruptible(r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		pw.CloseWithError(err)
	}()
	return pr
}

// shutdown stops the servers gracefully, giving calls in flight
// shutdownGrace to finish; after that their contexts are cancelled.
func (s *server) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	var wg sync.WaitGroup
	stop := func(name string, shutdown func(context.Context) error) {
		wg.Go(func() {
			if err := shutdown(ctx); err != nil {
				s.log.Warn("shutdown incomplete", "server", name, "err", err)
			}
		})
	}
	if s.raw != nil {
		stop("tcp/stdio", s.raw.Shutdown)
	}
	if s.acp != nil {
		stop("acp", s.acp.Shutdown)
	}
	if s.ipc != nil {
		stop("ipc", s.ipc.shutdown)
	}
	if s.http != nil {
		stop("http", s.http.Shutdown)
	}
	if s.mcp != nil {
		stop("mcp", s.mcp.shutdown)
	}
	if s.a2a != nil {
		stop("a2a", a2aShutdown(s.a2a))
	}
	wg.Wait()
	if s.admin != nil { // last: /metrics and /readyz answer while the others drain
		if err := s.admin.Shutdown(ctx); err != nil {
			s.admin.Close()
		}
	}
	s.obs.close(ctx, s.log)
}

// stopped logs the last line, with the calls handled when metrics count
// them (deploy/rolling-restart.sh checks them against its clients').
func (s *server) stopped() {
	if s.obs.reg == nil {
		s.log.Info("stopped")
		return
	}
	calls, _ := callsTotal(s.obs.reg)
	s.log.Info("stopped", "calls", int64(calls))
}

// wait waits, briefly, for the n serving goroutines still running to return.
func (s *server) wait(done <-chan error, n int) {
	timeout := time.After(time.Second)
	for ; n > 0; n-- {
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, netserver.ErrServerClosed) && !errors.Is(err, http.ErrServerClosed) {
				s.log.Warn("server stopped", "err", err)
			}
		case <-timeout:
			return
		}
	}
}
