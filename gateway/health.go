package gateway

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/encode"
)

// Probe is the health check of every upstream (Options.Probe): Method
// with Params, called on each upstream's own client every Every (default
// 5s), answered within Timeout (default 2s). Any answer, an error
// response included, counts as healthy: the upstream is there.
type Probe struct {
	Method  string
	Params  []byte
	Every   time.Duration
	Timeout time.Duration
}

// health is each group's upstreams' last probe.
type health struct {
	mu     sync.Mutex
	groups map[*Group][]atomic.Bool
	def    *Group
	all    []*Group
}

func (h *health) init(t *table) {
	h.groups = map[*Group][]atomic.Bool{}
	for _, r := range t.all {
		if r.group == nil || h.groups[r.group] != nil {
			continue
		}
		ok := make([]atomic.Bool, len(r.group.Pool.Stats().Endpoints))
		for i := range ok {
			ok[i].Store(true)
		}
		h.groups[r.group] = ok
		h.all = append(h.all, r.group)
	}
	if t.def != nil {
		h.def = t.def.group
	}
}

// of returns whether each of g's n upstreams is healthy: its last probe
// answered, and its pool has not ejected it.
func (h *health) of(g *Group, n int) []bool {
	st := g.Pool.Stats()
	ok := h.groups[g]
	out := make([]bool, n)
	for i := range out {
		out[i] = !st.Endpoints[i].Ejected && (i >= len(ok) || ok[i].Load())
	}
	return out
}

// Ready reports whether an upstream of the default group is healthy (see
// Probe; an upstream the pool has ejected is not). Without a default
// group, whether one of any group is.
func (g *Gateway) Ready() bool {
	groups := g.health.all
	if g.health.def != nil {
		groups = []*Group{g.health.def}
	}
	for _, gr := range groups {
		for _, ok := range g.health.of(gr, len(gr.Pool.Stats().Endpoints)) {
			if ok {
				return true
			}
		}
	}
	return false
}

// Start probes every upstream (Options.Probe) until ctx ends; without a
// probe method it does nothing. The first round runs before it returns.
func (g *Gateway) Start(ctx context.Context) {
	if g.probe.Method == "" {
		return
	}
	g.probeAll(ctx)
	go func() {
		t := time.NewTicker(or(g.probe.Every, 5*time.Second))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				g.probeAll(ctx)
			}
		}
	}()
}

// probeAll probes every upstream at once and waits for the answers. An
// upstream that answers is re-admitted by its pool (Pool.Probe).
func (g *Gateway) probeAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, gr := range g.health.all {
		ok := g.health.groups[gr]
		for i := range ok {
			wg.Go(func() {
				pctx, cancel := context.WithTimeout(ctx, or(g.probe.Timeout, 2*time.Second))
				defer cancel()
				err := gr.Pool.Probe(pctx, i, g.probe.Method, g.probe.Params)
				var e *encode.Error
				ok[i].Store(err == nil || errors.As(err, &e))
			})
		}
	}
	wg.Wait()
}
