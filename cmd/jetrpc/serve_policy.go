package main

// NOTE: jetrpc serve's per-method policy (docs/policy.md): the methods
// each listener serves (--api and its per-listener overrides), timeouts
// and costs by name, and access-log sampling.

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/openrpc"
)

// policyFlags are the policy flags of serve.
type policyFlags struct {
	api, httpAPI, wsAPI, tcpAPI string
	timeouts                    map[string]time.Duration
	costs                       map[string]int
	sample                      int
	svc                         *openrpc.Service // rpc.discover's, for GET /openrpc.json
}

// pairFlag is a repeatable NAME=VALUE flag.
type pairFlag struct {
	name  string
	parse func(method, value string) error
}

func (p *pairFlag) String() string { return "" }

func (p *pairFlag) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("--%s %q: want NAME=VALUE", p.name, v)
	}
	if err := p.parse(name, value); err != nil {
		return fmt.Errorf("--%s %q: %v", p.name, v, err)
	}
	return nil
}

func (p *policyFlags) define(fs *flag.FlagSet) {
	p.timeouts, p.costs = map[string]time.Duration{}, map[string]int{}
	fs.StringVar(&p.api, "api", "", "methods served on every listener: comma-separated `LIST` of names and prefixes (eth_, debug.); empty: all")
	fs.StringVar(&p.httpAPI, "http-api", "", "methods served over HTTP POST (`LIST`; overrides --api)")
	fs.StringVar(&p.wsAPI, "ws-api", "", "methods served over WebSocket (`LIST`; overrides --api)")
	fs.StringVar(&p.tcpAPI, "tcp-api", "", "methods served over TCP, stdio and IPC (`LIST`; overrides --api)")
	fs.Var(&pairFlag{"method-timeout", func(m, v string) error {
		d, err := time.ParseDuration(v)
		if err == nil && d <= 0 {
			err = fmt.Errorf("want a positive duration")
		}
		p.timeouts[m] = d
		return err
	}}, "method-timeout", "`NAME=DURATION`: the method's own call timeout (repeatable)")
	fs.Var(&pairFlag{"method-cost", func(m, v string) error {
		n, err := strconv.Atoi(v)
		if err == nil && n < 1 {
			err = fmt.Errorf("want a whole number of at least 1")
		}
		p.costs[m] = n
		return err
	}}, "method-cost", "`NAME=N`: what a call of the method takes from its client's --rate-limit (repeatable; default 1)")
	fs.IntVar(&p.sample, "log-sample", 0, "log 1 in `N` calls at Info (errors and slow calls always)")
}

// check validates the flags parse cannot: --log-sample and the lists.
func (p *policyFlags) check() error {
	if p.sample < 0 {
		return fmt.Errorf("--log-sample %d: must not be negative (0 or 1: every call)", p.sample)
	}
	for _, l := range []struct{ name, list string }{{"api", p.api}, {"http-api", p.httpAPI}, {"ws-api", p.wsAPI}, {"tcp-api", p.tcpAPI}} {
		if l.list != "" && strings.Trim(l.list, ", \t") == "" {
			return fmt.Errorf("--%s %q: names no method", l.name, l.list)
		}
	}
	return nil
}

// checkMethods reports a --method-timeout or --method-cost naming a method
// e does not have (a typo would otherwise be ignored).
func (p *policyFlags) checkMethods(e *dispatch.Engine) error {
	has := map[string]bool{}
	for _, m := range e.Methods() {
		has[m.Name] = true
	}
	for _, f := range []struct {
		name  string
		names []string
	}{{"method-timeout", slices.Sorted(maps.Keys(p.timeouts))}, {"method-cost", slices.Sorted(maps.Keys(p.costs))}} {
		for _, n := range f.names {
			if !has[n] && !strings.HasPrefix(n, "rpc.") { // rpc.discover comes at Freeze
				return fmt.Errorf("--%s %s: no such method", f.name, n)
			}
		}
	}
	return nil
}

// engineOptions adds the timeouts and costs to o.
func (p *policyFlags) engineOptions(o *dispatch.Options) {
	if len(p.timeouts) > 0 {
		o.MethodTimeouts = p.timeouts
	}
	if len(p.costs) > 0 {
		o.MethodCosts = p.costs
	}
}

// methodSets returns the methods of each transport (nil: all everywhere).
func (p *policyFlags) methodSets(e *dispatch.Engine) map[netserver.Transport]*dispatch.MethodSet {
	if p.api == "" && p.httpAPI == "" && p.wsAPI == "" && p.tcpAPI == "" {
		return nil
	}
	set := func(list string) *dispatch.MethodSet {
		if list == "" {
			list = p.api
		}
		if list == "" {
			return nil
		}
		return e.NewMethodSet(strings.Split(list, ","))
	}
	httpSet := set(p.httpAPI)
	tcpSet := set(p.tcpAPI)
	return map[netserver.Transport]*dispatch.MethodSet{
		netserver.HTTP: httpSet, netserver.SSE: httpSet, netserver.WS: set(p.wsAPI),
		netserver.TCP: tcpSet, netserver.Stdio: tcpSet,
	}
}
