package main

// NOTE: jetrpc proxy: the gateway (package gateway) behind the listeners of
// jetrpc serve. parseProxy defines serve's listener flag groups
// (defineListeners) and the gateway's, reads --config FILE where it
// appears (YAML; its keys are flag names, a list repeats a flag), and
// checks everything; runProxy dials the upstreams (one client each, by URL
// scheme), builds the groups (--upstream: the default group; each
// distinct --route URL list: a group), the cache (proxy_cache.go), the
// gateway, and then serves exactly as serve does.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/gateway"
)

// proxyConfig is what the proxy flags ask for.
type proxyConfig struct {
	serve      serveConfig
	framing    string
	upstreams  []string
	routes     []proxyRoute
	idempotent []string
	hedgeAfter time.Duration
	timeout    time.Duration
	probe      string
	probeEvery time.Duration
	cache      proxyCacheFlags
	timeouts   map[string]time.Duration // --method-timeout
	costs      map[string]int           // --method-cost
	limits     map[string]routeLimit    // --route-rate, --route-cost, by PREFIX
}

// routeLimit is a route's --route-rate and --route-cost.
type routeLimit struct {
	rate  float64
	burst int
	cost  int
}

// proxyRoute is one --route PREFIX=URL[,URL...].
type proxyRoute struct {
	match string
	urls  []string
}

func proxy(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseProxy(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.serve.ops.level}))
	obs, err := newObservability(&cfg.serve.ops, log, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc proxy:", err)
		return 1
	}
	gw, closeUp, err := cfg.gateway(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc proxy:", err)
		return 1
	}
	defer closeUp()
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	gw.Start(gctx) // health probes
	if obs.reg != nil {
		if err := obs.reg.Register(gatewayCollector{gw}); err != nil {
			fmt.Fprintln(stderr, "jetrpc proxy:", err)
			return 1
		}
	}
	eopts := cfg.serve.limits.engineOptions(dispatch.Options{MaxBatch: cfg.serve.maxBatch, MaxWorkers: cfg.serve.workers,
		Logger: log, Observer: obs.observer(), Forward: gw, MethodCosts: cfg.costs})
	cfg.serve.policy.costs = cfg.costs // an HTTP body priced by them too (newServer)
	e := dispatch.New(eopts)
	defer e.Close()
	for _, mw := range obs.use {
		if err = e.Use(mw); err != nil {
			fmt.Fprintln(stderr, "jetrpc proxy:", err)
			return 1
		}
	}
	s := newServer(e, &cfg.serve, log, obs)
	s.health.SetReadyCheck(func() error {
		if gw.Ready() {
			return nil
		}
		return errors.New("no upstream ready")
	})
	defer cfg.serve.tls.watch(log)()
	if err := s.listen(ctx, &cfg.serve, stderr); err != nil {
		fmt.Fprintln(stderr, "jetrpc proxy:", err)
		return 1
	}
	return s.run(ctx, stdin, stdout)
}

// parseProxy parses and checks the proxy flags. Problems are reported on
// stderr; the error is flag.ErrHelp for -h.
func parseProxy(args []string, stderr io.Writer) (*proxyConfig, error) {
	fs := flag.NewFlagSet("jetrpc proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &proxyConfig{}
	cfg.serve.defineListeners(fs, &cfg.framing)
	fs.Func("upstream", "forward to the upstreams at `URL[,URL...]` (http(s)://, ws(s)://, tcp://HOST:PORT, ipc:///PATH; repeatable): the default group", func(v string) error {
		urls, err := splitURLs(v)
		cfg.upstreams = append(cfg.upstreams, urls...)
		return err
	})
	fs.Func("route", "route methods to other upstreams: `PREFIX=URL[,URL...]` (repeatable; PREFIX is a method name, or a prefix ending in * or _; no URL refuses them: -32601)", func(v string) error {
		match, list, ok := strings.Cut(v, "=")
		if !ok || match == "" {
			return errors.New("want PREFIX=URL[,URL...]")
		}
		r := proxyRoute{match: match}
		if list != "" {
			var err error
			if r.urls, err = splitURLs(list); err != nil {
				return err
			}
		}
		cfg.routes = append(cfg.routes, r)
		return nil
	})
	fs.Func("idempotent", "methods safe to retry, fail over and hedge: `LIST` of names and prefixes ending in * (repeatable; * is every method)", func(v string) error {
		for _, m := range strings.Split(v, ",") {
			if m = strings.TrimSpace(m); m != "" {
				cfg.idempotent = append(cfg.idempotent, m)
			}
		}
		return nil
	})
	fs.DurationVar(&cfg.hedgeAfter, "hedge-after", 0, "send an idempotent call unanswered after `DURATION` to a second upstream too (0: off)")
	fs.DurationVar(&cfg.timeout, "timeout", 30*time.Second, "most time a forwarded call may take (0: no bound)")
	fs.StringVar(&cfg.probe, "probe", "web3_clientVersion", "health probe `METHOD` called on every upstream (any answer is healthy; empty: off)")
	fs.DurationVar(&cfg.probeEvery, "probe-every", 5*time.Second, "time between health probes")
	cfg.timeouts, cfg.costs = map[string]time.Duration{}, map[string]int{}
	fs.Var(&pairFlag{"method-timeout", func(m, v string) error {
		d, err := time.ParseDuration(v)
		if err == nil && d <= 0 {
			err = errors.New("want a positive duration")
		}
		cfg.timeouts[m] = d
		return err
	}}, "method-timeout", "`NAME=DURATION`: the method's own --timeout (repeatable)")
	fs.Var(&pairFlag{"method-cost", func(m, v string) error {
		n, err := strconv.Atoi(v)
		if err == nil && n < 1 {
			err = errors.New("want a whole number of at least 1")
		}
		cfg.costs[m] = n
		return err
	}}, "method-cost", "`NAME=N`: what a call of the method takes from its client's --rate-limit (repeatable; default 1)")
	cfg.limits = map[string]routeLimit{}
	fs.Var(&pairFlag{"route-rate", func(m, v string) error {
		l := cfg.limits[m]
		var err error
		l.rate, l.burst, err = parseRouteRate(v)
		cfg.limits[m] = l
		return err
	}}, "route-rate", "`PREFIX=N[/BURST]`: at most N calls a second (BURST at once) for the methods of --route PREFIX, all clients together; over it -32005 (repeatable; a PREFIX with no --route is routed to the --upstream group)")
	fs.Var(&pairFlag{"route-cost", func(m, v string) error {
		n, err := strconv.Atoi(v)
		if err == nil && n < 1 {
			err = errors.New("want a whole number of at least 1")
		}
		l := cfg.limits[m]
		l.cost = n
		cfg.limits[m] = l
		return err
	}}, "route-cost", "`PREFIX=N`: what one call of the route takes from its --route-rate (repeatable; default 1)")
	cfg.cache.define(fs) // proxy_cache.go
	fs.Func("config", "read flags from the YAML `FILE` (keys are flag names, a list repeats a flag; later flags override)", func(path string) error {
		return applyConfig(fs, path)
	})
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	err := cfg.check(fs)
	if err != nil {
		fmt.Fprintf(stderr, "jetrpc proxy: %v\nRun \"jetrpc proxy -h\" for usage.\n", err)
	}
	return cfg, err
}

func (cfg *proxyConfig) check(fs *flag.FlagSet) error {
	if err := cfg.serve.check(fs, cfg.framing); err != nil {
		return err
	}
	if len(cfg.upstreams) == 0 && len(cfg.routes) == 0 {
		return errors.New("--upstream: no upstream given")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"hedge-after", cfg.hedgeAfter}, {"timeout", cfg.timeout}, {"probe-every", cfg.probeEvery}} {
		if d.v < 0 {
			return fmt.Errorf("--%s %v: must not be negative", d.name, d.v)
		}
	}
	if cfg.probe != "" && cfg.probeEvery == 0 {
		return errors.New("--probe-every 0: must be above 0 (--probe \"\" turns probes off)")
	}
	for _, m := range slices.Sorted(maps.Keys(cfg.limits)) {
		l := cfg.limits[m]
		switch {
		case m == "*":
			return errors.New("--route-rate " + m + ": a route's PREFIX is a method name or prefix (the default group takes no rate)")
		case l.rate == 0:
			return errors.New("--route-cost " + m + ": the route has no --route-rate")
		case len(cfg.upstreams) == 0 && coveringRoute(cfg.routes, m) < 0:
			return errors.New("--route-rate " + m + ": no --route covers " + m + " and there is no --upstream")
		}
	}
	return nil
}

// parseRouteRate reads N[/BURST] of --route-rate.
func parseRouteRate(v string) (rate float64, burst int, err error) {
	n, b, hasBurst := strings.Cut(v, "/")
	rate, err = strconv.ParseFloat(n, 64)
	if err != nil || rate <= 0 || math.IsInf(rate, 0) {
		return 0, 0, errors.New("want N[/BURST]: N a positive number of calls a second")
	}
	if hasBurst {
		if burst, err = strconv.Atoi(b); err != nil || burst < 1 {
			return 0, 0, errors.New("want N[/BURST]: BURST a whole number of at least 1")
		}
	}
	return rate, burst, nil
}

// limitRoutes gives routes (made from cfg.routes, in their order) their
// --route-rate and --route-cost. A PREFIX no --route names gets a route of
// its own to the group its methods went to: the longest --route prefix
// that covers it, else the default group.
func (cfg *proxyConfig) limitRoutes(routes []gateway.Route, def *gateway.Group) []gateway.Route {
	for _, m := range slices.Sorted(maps.Keys(cfg.limits)) {
		l := cfg.limits[m]
		i := slices.IndexFunc(routes, func(r gateway.Route) bool { return r.Match == m })
		if i < 0 {
			g := def
			if j := coveringRoute(cfg.routes, m); j >= 0 {
				g = routes[j].Group
			}
			i = len(routes)
			routes = append(routes, gateway.Route{Match: m, Group: g})
		}
		routes[i].Rate, routes[i].Burst, routes[i].Cost = l.rate, l.burst, l.cost
	}
	return routes
}

// coveringRoute returns the index of the --route whose prefix covers m
// (a method name or prefix), the longest one, or -1.
func coveringRoute(routes []proxyRoute, m string) int {
	m = strings.TrimSuffix(m, "*")
	best := -1
	for i, r := range routes {
		p, ok := strings.CutSuffix(r.match, "*")
		if !ok && !strings.HasSuffix(r.match, "_") {
			continue // an exact name covers only itself
		}
		if strings.HasPrefix(m, p) && (best < 0 || len(p) > len(strings.TrimSuffix(routes[best].match, "*"))) {
			best = i
		}
	}
	return best
}

// splitURLs splits a comma-separated list of upstream URLs and checks each.
func splitURLs(v string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if _, _, err := parseUpstream(s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, errors.New("no URL given")
	}
	return out, nil
}

// parseUpstream returns the scheme of an upstream URL and its address.
func parseUpstream(s string) (scheme, addr string, err error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", "", fmt.Errorf("upstream %q: %v", s, err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
		if u.Host == "" {
			return "", "", fmt.Errorf("upstream %q: no host", s)
		}
		return u.Scheme, s, nil
	case "tcp":
		if u.Host == "" {
			return "", "", fmt.Errorf("upstream %q: want tcp://HOST:PORT", s)
		}
		return "tcp", u.Host, nil
	case "ipc", "unix":
		if u.Path == "" {
			return "", "", fmt.Errorf("upstream %q: want ipc:///PATH", s)
		}
		return "ipc", u.Path, nil
	}
	return "", "", fmt.Errorf("upstream %q: scheme must be http, https, ws, wss, tcp or ipc", s)
}

// dialUpstream dials one upstream: a client that reconnects (streams and
// WebSockets) so that an upstream that comes back is used again, with the
// Relay of its subscriptions (nil over HTTP).
func dialUpstream(ctx context.Context, s string) (*client.Client, *gateway.Relay, error) {
	scheme, addr, err := parseUpstream(s)
	if err != nil {
		return nil, nil, err
	}
	if scheme == "http" || scheme == "https" {
		c, err := client.DialHTTP(addr, nil)
		return c, nil, err
	}
	relay := gateway.NewRelay(s)
	opts := &client.Options{Handler: relay,
		Reconnect: &client.Reconnect{MinDelay: 50 * time.Millisecond, MaxDelay: 2 * time.Second, OnState: relay.State}}
	var c *client.Client
	switch scheme {
	case "ws", "wss":
		c, err = client.DialWebSocket(ctx, addr, opts)
	case "ipc":
		c, err = client.Dial(ctx, "unix", addr, opts)
	default:
		c, err = client.Dial(ctx, "tcp", addr, opts)
	}
	return c, relay, err
}

// gateway dials the upstreams and builds the gateway; closeUp closes the
// upstreams and the cache.
func (cfg *proxyConfig) gateway(ctx context.Context) (*gateway.Gateway, func(), error) {
	var groups []*gateway.Group
	closeUp := func() {
		for _, g := range groups {
			g.Pool.Close()
		}
	}
	byList := map[string]*gateway.Group{}
	group := func(name string, urls []string) (*gateway.Group, error) {
		key := strings.Join(urls, ",")
		if g := byList[key]; g != nil {
			return g, nil
		}
		g := &gateway.Group{Name: name, URLs: urls}
		for _, u := range urls {
			dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			c, relay, err := dialUpstream(dctx, u)
			cancel()
			if err != nil {
				for _, c := range g.Upstreams {
					c.Close()
				}
				return nil, fmt.Errorf("upstream %s: %v", u, err)
			}
			g.Upstreams, g.Relays = append(g.Upstreams, c), append(g.Relays, relay)
		}
		popts := &client.PoolOptions{HedgeAfter: cfg.hedgeAfter}
		if len(cfg.idempotent) > 0 {
			// Every call in flight on an upstream that dies is retried at
			// once: the burst covers a good many of them.
			popts.Retry = &client.RetryPolicy{Idempotent: cfg.idempotent, BudgetBurst: 1000}
		}
		p, err := client.NewPool(g.Upstreams, popts)
		if err != nil {
			for _, c := range g.Upstreams {
				c.Close()
			}
			return nil, err
		}
		g.Pool = p
		groups = append(groups, g)
		byList[key] = g
		return g, nil
	}
	opts := &gateway.Options{Timeout: cfg.timeout, MethodTimeouts: cfg.timeouts,
		Probe: gateway.Probe{Method: cfg.probe, Every: cfg.probeEvery}}
	var err error
	if len(cfg.upstreams) > 0 {
		if opts.Default, err = group("default", cfg.upstreams); err != nil {
			closeUp()
			return nil, nil, err
		}
	}
	for _, r := range cfg.routes {
		rt := gateway.Route{Match: r.match}
		if len(r.urls) > 0 {
			if rt.Group, err = group(r.match, r.urls); err != nil {
				closeUp()
				return nil, nil, err
			}
		}
		opts.Routes = append(opts.Routes, rt)
	}
	opts.Routes = cfg.limitRoutes(opts.Routes, opts.Default)
	call := func(ctx context.Context, dst []byte, method string, params []byte) ([]byte, error) {
		if opts.Default == nil {
			return dst, errors.New("no default upstream group")
		}
		return opts.Default.Pool.CallRaw(ctx, dst, method, params)
	}
	store, policy, stopCache, err := cfg.cache.build(ctx, call)
	if err != nil {
		closeUp()
		return nil, nil, err
	}
	opts.Cache, opts.CachePolicy = store, policy
	gw, err := gateway.New(opts)
	if err != nil {
		stopCache()
		closeUp()
		return nil, nil, err
	}
	return gw, func() { stopCache(); closeUp() }, nil
}

// applyConfig sets the flags of a YAML file: each key is a flag name, each
// value a scalar or a list of them (a repeated flag).
func applyConfig(fs *flag.FlagSet, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	for k, v := range m {
		if k == "config" || fs.Lookup(k) == nil {
			return fmt.Errorf("%s: unknown key %q (keys are the flags' names)", path, k)
		}
		vals, ok := v.([]any)
		if !ok {
			vals = []any{v}
		}
		for _, x := range vals {
			s := ""
			switch x := x.(type) {
			case nil:
			case string:
				s = x
			case map[string]any, []any:
				return fmt.Errorf("%s: %s: want a value or a list of values", path, k)
			default:
				s = fmt.Sprint(x)
			}
			if err := fs.Set(k, s); err != nil {
				return fmt.Errorf("%s: %s %q: %v", path, k, s, err)
			}
		}
	}
	return nil
}
