package gateway

import (
	"bytes"
	"errors"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Route sends the methods it matches to a group, under a policy.
type Route struct {
	// Match is an exact method name, or a prefix: a name ending in "*"
	// ("debug_*") or in "_" ("eth_", a namespace, as go-ethereum's
	// --http.api names them). The longest prefix that matches wins; an
	// exact name beats every prefix.
	Match string
	// Group serves the calls; nil refuses them (-32601).
	Group *Group
	// Timeout bounds each call (0: Options.Timeout).
	Timeout time.Duration
	// Rate, when above 0, bounds the route's calls per second, for all
	// clients together (Burst at once, default max(1, Rate)); a call over
	// it is answered -32005 "Limit exceeded". Cost is what one call takes
	// from it (default 1), as proxyd prices eth_getLogs.
	Rate  float64
	Burst int
	Cost  int
}

// route is a Route made ready, with its counters.
type route struct {
	match   string
	prefix  []byte // match, for a prefix route
	group   *Group
	timeout time.Duration
	cost    int
	lim     *rate.Limiter // nil: no bound

	calls, errors, limited, cacheHits atomic.Uint64
	latency                           atomic.Int64 // sum of call durations, ns
}

// table finds the route of a method.
type table struct {
	exact    map[string]*route
	prefixes []*route // longest first
	def      *route   // the default group's; nil: none
	all      []*route
}

func newTable(routes []Route, def *Group, timeout time.Duration) (*table, error) {
	t := &table{exact: map[string]*route{}}
	for _, r := range routes {
		if r.Match == "" || r.Match == "*" {
			return nil, errors.New("gateway: a route needs a method name or prefix (the default group takes the rest)")
		}
		rt := &route{group: r.Group, timeout: or(r.Timeout, timeout), cost: max(r.Cost, 1)}
		if r.Rate > 0 {
			rt.lim = rate.NewLimiter(rate.Limit(r.Rate), max(r.Burst, rt.cost, int(r.Rate)))
		}
		switch {
		case strings.HasSuffix(r.Match, "*"):
			rt.match = strings.TrimSuffix(r.Match, "*")
			t.prefixes = append(t.prefixes, rt)
		case strings.HasSuffix(r.Match, "_"):
			rt.match = r.Match
			t.prefixes = append(t.prefixes, rt)
		default:
			if t.exact[r.Match] != nil {
				return nil, errors.New("gateway: two routes for method " + r.Match)
			}
			rt.match = r.Match
			t.exact[r.Match] = rt
		}
		t.all = append(t.all, rt)
	}
	for _, r := range t.prefixes {
		r.prefix = []byte(r.match)
	}
	sort.SliceStable(t.prefixes, func(i, j int) bool { return len(t.prefixes[i].match) > len(t.prefixes[j].match) })
	if def != nil {
		t.def = &route{match: "*", group: def, timeout: timeout, cost: 1}
		t.all = append(t.all, t.def)
	}
	return t, nil
}

// lookup returns the route of method, or nil when none allows it.
func (t *table) lookup(method []byte) *route {
	if r := t.exact[string(method)]; r != nil { // no allocation: a map index
		return r.allowed()
	}
	for _, r := range t.prefixes {
		if bytes.HasPrefix(method, r.prefix) {
			return r.allowed()
		}
	}
	return t.def
}

// allowed returns r, or nil when r refuses its methods.
func (r *route) allowed() *route {
	if r.group == nil {
		return nil
	}
	return r
}

// admit takes the call's cost from the route's rate.
func (r *route) admit() bool {
	if r.lim == nil || r.lim.AllowN(time.Now(), r.cost) {
		return true
	}
	r.limited.Add(1)
	return false
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
