package gateway

// NOTE: the path of one forwarded call (forwardOne): route by method, the
// route's rate, the cache (when its policy takes the call), then the
// group's pool, which appends the upstream's raw result straight after
// the answer's head ({"jsonrpc":"2.0","id":<the client's id>,"result":),
// so that the answer is built in place, in the engine's output buffer,
// with no copy of the result and no allocation. Batches: batch.go.

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/gateway/cache"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
)

// Group is a set of upstreams that serve the same methods: a client.Pool
// over them. The pool's RetryPolicy declares which methods are idempotent
// (failed over, retried and hedged); any other call is sent once.
type Group struct {
	// Name names the group in metrics and errors ("default", a route's
	// match).
	Name string
	// Pool reaches the upstreams. The Gateway does not close it.
	Pool *client.Pool
	// Upstreams are the pool's clients, in the pool's order, and URLs
	// their addresses (for metrics; optional).
	Upstreams []*client.Client
	URLs      []string
	// Relays carry the notifications of subscriptions made through each
	// upstream, in the pool's order (nil for an HTTP upstream, which has
	// none); see Relay. Without any, subscription calls are forwarded as
	// any other call and their notifications go nowhere.
	Relays []*Relay
}

// Options configures a Gateway.
type Options struct {
	// Default serves every method no route matches; nil: such a call is
	// answered -32601.
	Default *Group
	// Routes send methods to other groups (see Route).
	Routes []Route
	// Timeout bounds each forwarded call and sub-batch (0: no bound but
	// the client's; the call then costs no timer).
	Timeout time.Duration
	// MethodTimeouts bound the calls of these methods (exact names) instead
	// of their route's Timeout (jetrpc proxy --method-timeout); a sub-batch
	// gets the longest of its members'.
	MethodTimeouts map[string]time.Duration
	// Cache keeps answers that CachePolicy allows (both or neither).
	Cache       cache.Store
	CachePolicy cache.Policy
	// Probe, when its Method is set, is called on every upstream of every
	// group each Probe.Every (Gateway.Start); Ready reports whether one
	// of the default group answered the last one.
	Probe Probe
}

// Gateway forwards JSON-RPC messages to upstream groups. It implements
// dispatch.Forwarder; it is safe for concurrent use.
type Gateway struct {
	t        *table
	timeouts map[string]time.Duration // Options.MethodTimeouts
	store    cache.Store
	policy   cache.Policy
	probe    Probe
	health   health
	local    bool // the store is in this process (*cache.Memory): async.go

	states sync.Pool     // *fwdState
	next   atomic.Uint32 // round robin of subscriptions (subscribe.go)
}

var _ dispatch.Forwarder = (*Gateway)(nil)

// New returns a Gateway configured by opts.
func New(opts *Options) (*Gateway, error) {
	if opts == nil {
		opts = &Options{}
	}
	if (opts.Cache == nil) != (opts.CachePolicy == nil) {
		return nil, errors.New("gateway: Cache and CachePolicy go together")
	}
	t, err := newTable(opts.Routes, opts.Default, opts.Timeout)
	if err != nil {
		return nil, err
	}
	g := &Gateway{t: t, timeouts: opts.MethodTimeouts, store: opts.Cache, policy: opts.CachePolicy, probe: opts.Probe}
	_, g.local = opts.Cache.(*cache.Memory)
	g.states.New = func() any { return new(fwdState) }
	g.health.init(t)
	return g, nil
}

// fwdState is one forwarded message's scratch.
type fwdState struct {
	key   []byte     // a cache key
	slots []slot     // a batch's members (batch.go)
	subs  []subBatch // a batch's sub-batches, one per group
	data  []byte     // error.data of a batch's refused members
	wg    sync.WaitGroup
}

// Forward answers the message p holds (dispatch.Forwarder): a call or a
// notification is forwarded to its route's group, a batch split by route.
func (g *Gateway) Forward(ctx context.Context, dst []byte, p *decode.Parser) []byte {
	m := p.Message()
	if m.Kind == decode.Batch {
		return g.forwardBatch(ctx, dst, p)
	}
	return g.forwardOne(ctx, dst, m)
}

// forwardOne answers one call or notification.
func (g *Gateway) forwardOne(ctx context.Context, dst []byte, m *decode.Message) []byte {
	r := g.t.lookup(m.Method)
	call := m.Kind == decode.Call
	switch {
	case r == nil:
		if !call {
			return dst
		}
		return encode.AppendStdError(dst, m.ID, encode.CodeMethodNotFound)
	case !r.admit():
		if !call {
			return dst
		}
		return encode.AppendStdError(dst, m.ID, encode.CodeLimitExceeded)
	}
	if call && len(r.group.Relays) > 0 {
		if out, ok := g.pinned(ctx, dst, m, r); ok { // subscriptions (subscribe.go)
			return out
		}
	}
	method := bytesconv.B2S(m.Method) // used only during the call
	if !call {
		r.calls.Add(1)
		if err := r.group.Pool.NotifyRaw(ctx, method, m.Params); err != nil {
			r.errors.Add(1)
		}
		return dst
	}
	start := len(dst)
	dst = encode.AppendResultStart(dst, m.ID)
	head := len(dst)
	var st *fwdState
	ttl, cacheable := time.Duration(0), false
	if g.policy != nil {
		if ttl, cacheable = g.policy.TTL(m.Method, m.Params); cacheable {
			st = g.states.Get().(*fwdState)
			defer g.states.Put(st)
			st.key = cache.Key(st.key[:0], m.Method, m.Params)
			if out, hit := g.store.Get(dst, st.key); hit {
				r.cacheHits.Add(1)
				return encode.AppendResultEnd(out)
			}
		}
	}
	timeout := g.timeout(r, m.Method)
	out, err := g.call(ctx, r, timeout, dst, method, m.Params)
	if err != nil {
		return appendFailure(dst[:start], m.ID, out[head:], err, timeout)
	}
	if cacheable && g.policy.Keep(m.Method, m.Params, out[head:]) {
		g.store.Set(st.key, out[head:], ttl)
	}
	return encode.AppendResultEnd(out)
}

// timeout returns the bound of a call of method on route r.
func (g *Gateway) timeout(r *route, method []byte) time.Duration {
	if len(g.timeouts) == 0 {
		return r.timeout
	}
	if d, ok := g.timeouts[string(method)]; ok {
		return d
	}
	return r.timeout
}

// call makes one call on r's group, under timeout, and counts it.
func (g *Gateway) call(ctx context.Context, r *route, timeout time.Duration, dst []byte, method string, params []byte) ([]byte, error) {
	t0 := mono()
	out, err := r.group.Pool.ForwardTimeout(ctx, dst, method, params, timeout)
	r.calls.Add(1)
	r.latency.Add(int64(mono() - t0))
	if err != nil {
		countError(r, err)
	}
	return out, err
}

// countError counts a failed call of r, unless an upstream answered it
// (its error response is an answer).
func countError(r *route, err error) {
	var e *encode.Error
	if !errors.As(err, &e) {
		r.errors.Add(1)
	}
}

// Upstream failures are answered with these.
var (
	errUnavailable     = "Upstream unavailable"
	defaultUnsubscribe = 5 * time.Second
)

// appendFailure answers a call that failed with err: with obj, the
// upstream's error object as it came (Pool.ForwardRaw kept it), when there
// is one, else as appendError does. obj may follow dst in its array
// (encode.AppendErrorObject).
func appendFailure(dst, id, obj []byte, err error, timeout time.Duration) []byte {
	if len(obj) > 0 {
		return encode.AppendErrorObject(dst, id, obj)
	}
	return appendError(dst, id, err, timeout)
}

// appendError answers a call that failed with err without an error object
// of its upstream: an upstream's error (its code, message and data), a
// call over its timeout -32003, any other failure (no upstream answered)
// -32000 "Upstream unavailable" with the cause in error.data.
func appendError(dst, id []byte, err error, timeout time.Duration) []byte {
	var e *encode.Error
	switch {
	case errors.As(err, &e):
		return encode.AppendErrorValue(dst, id, e)
	case errors.Is(err, context.DeadlineExceeded) && timeout > 0:
		data := encode.AppendString(nil, "no upstream answered within "+timeout.String())
		return encode.AppendError(dst, id, encode.CodeTimeout, encode.CodeTimeout.String(), data)
	}
	return encode.AppendError(dst, id, encode.CodeServerError, errUnavailable, encode.AppendString(nil, err.Error()))
}

// Stats are a Gateway's counters, per route and per upstream.
type Stats struct {
	Routes []RouteStats
	Groups []GroupStats
}

// RouteStats are one route's counters.
type RouteStats struct {
	Match     string // the route's Match ("*": the default group)
	Group     string
	Calls     uint64 // calls and notifications forwarded (a sub-batch's members each)
	Errors    uint64 // of them, failed without an upstream's answer
	Limited   uint64 // refused over the route's rate
	CacheHits uint64
	Latency   time.Duration // total time of the calls forwarded
}

// GroupStats are one group's pool counters and its upstreams'.
type GroupStats struct {
	Name    string
	Pool    client.PoolStats
	URLs    []string
	Healthy []bool // the last probe of each upstream answered (true without probes)
}

// Stats returns the gateway's counters.
func (g *Gateway) Stats() Stats {
	var s Stats
	seen := map[*Group]bool{}
	for _, r := range g.t.all {
		name := ""
		if r.group != nil {
			name = r.group.Name
		}
		s.Routes = append(s.Routes, RouteStats{Match: r.match, Group: name, Calls: r.calls.Load(), Errors: r.errors.Load(),
			Limited: r.limited.Load(), CacheHits: r.cacheHits.Load(), Latency: time.Duration(r.latency.Load())})
		if r.group == nil || seen[r.group] {
			continue
		}
		seen[r.group] = true
		gs := GroupStats{Name: r.group.Name, Pool: r.group.Pool.Stats(), URLs: r.group.URLs}
		gs.Healthy = g.health.of(r.group, len(gs.Pool.Endpoints))
		s.Groups = append(s.Groups, gs)
	}
	return s
}
