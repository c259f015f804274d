package dispatch

// NOTE: per-method policy that a transport applies per listener or per
// connection: which methods it serves (a MethodSet) and what each message
// costs its client's rate bucket (Method.Cost, charged through a
// connection's charge function, engineconn.Conn.SetCharge). Both are read
// from the message as parsed once: the set is a bitmap over the frozen
// methods' indexes, so a lookup checks one bit, and the cost is summed
// from the methods looked up anyway. A message's policy travels in its
// pooled state (state.pol); nil is the engine's default: every method
// served, nothing charged.

import (
	"context"
	"strings"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
)

// policy is what applies to one message: the methods served (nil set: all)
// and the rate charge (nil: none).
type policy struct {
	set    *MethodSet
	charge func(cost int) bool
}

// MethodSet is the methods a listener serves, as go-ethereum's
// --http.api: exact names, and namespace prefixes (an entry ending in "_"
// or ".", such as "eth_" or "debug."); "*" is every method. The engine's
// own "rpc." methods (rpc.discover, rpc.authenticate) are always served.
// A method outside the set is answered -32601 there, exactly as if it did
// not exist. Make one with [Engine.NewMethodSet]; it is compiled to a
// bitmap when the engine freezes, and is safe for concurrent use.
type MethodSet struct {
	e        *Engine
	all      bool
	names    map[string]bool
	prefixes []string
	bits     []uint64 // over method.idx; written at Freeze, before any lookup
	pol      policy   // {set: this}
}

// NewMethodSet returns the set of the methods patterns names (see
// MethodSet); empty entries are ignored.
func (e *Engine) NewMethodSet(patterns []string) *MethodSet {
	ms := &MethodSet{e: e, names: make(map[string]bool)}
	ms.pol.set = ms
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
		case p == "*":
			ms.all = true
		case strings.HasSuffix(p, "_") || strings.HasSuffix(p, "."):
			ms.prefixes = append(ms.prefixes, p)
		default:
			ms.names[p] = true
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.frozen.Load() {
		ms.compile(e.all)
	} else {
		e.sets = append(e.sets, ms)
	}
	return ms
}

// Has reports whether the set serves the method name (nil: every method).
func (ms *MethodSet) Has(name string) bool {
	if ms == nil || ms.all || ms.names[name] || strings.HasPrefix(name, "rpc.") {
		return true
	}
	for _, p := range ms.prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// compile sets the bits of the frozen methods ms serves.
func (ms *MethodSet) compile(all []*method) {
	bits := make([]uint64, (len(all)+63)/64)
	for _, md := range all {
		if ms.Has(md.name) {
			bits[md.idx>>6] |= 1 << (md.idx & 63)
		}
	}
	ms.bits = bits
}

// serves reports whether md is served under p.
func (p *policy) serves(md *method) bool {
	if p == nil || p.set == nil {
		return true
	}
	return p.set.bits[md.idx>>6]&(1<<(md.idx&63)) != 0
}

// ProcessContext is Engine.ProcessContext serving only the set's methods:
// what an HTTP listener of its own calls with each request.
func (ms *MethodSet) ProcessContext(ctx context.Context, dst, msg []byte) []byte {
	return ms.e.process(ctx, &ms.pol, dst, msg)
}

type methodSetKey struct{}

// WithMethodSet returns ctx carrying ms, the methods served to the
// connections made under it (nil: every method). A transport gives it to
// the connections of a listener; rpc.discover finds it with MethodSetOf.
func WithMethodSet(ctx context.Context, ms *MethodSet) context.Context {
	return context.WithValue(ctx, methodSetKey{}, &ms)
}

// MethodSetOf returns the methods served where ctx runs (nil: every
// method), as WithMethodSet set them.
func MethodSetOf(ctx context.Context) *MethodSet {
	if p, ok := ctx.Value(methodSetKey{}).(**MethodSet); ok {
		return *p
	}
	return nil
}

// costOf is what the message m, just parsed into s, costs (batch members
// looked up already): each call and notification its method's Cost (1
// for an unknown method), an invalid member 1, a response nothing.
func costOf(s *state, m *decode.Message, md *method) int {
	if m.Kind != decode.Batch {
		return kindCost(m.Kind, md)
	}
	n := 0
	for i, md := range s.mds {
		n += kindCost(s.kinds[i], md)
	}
	return max(n, 1)
}

func kindCost(kind decode.Kind, md *method) int {
	switch {
	case kind == decode.Result || kind == decode.ErrorResponse:
		return 0
	case md == nil:
		return 1
	}
	return md.price
}

// charged asks p's charge for the message parsed into s (md: a single
// message's method) and, when it is refused, appends the answer: each call
// in it LimitExceeded. It reports whether the message may run.
func (e *Engine) charged(p *policy, s *state, m *decode.Message, md *method, dst *[]byte) bool {
	return p == nil || p.charge == nil || e.charge(p, s, m, md, dst)
}

// charge is charged under a policy with a rate.
func (e *Engine) charge(p *policy, s *state, m *decode.Message, md *method, dst *[]byte) bool {
	if n := costOf(s, m, md); n == 0 || p.charge(n) {
		return true
	}
	*dst = e.appendRejection(*dst, s, m, encode.CodeLimitExceeded)
	return false
}

// MessageCost returns what msg costs a client's rate bucket, as a
// connection charges it (see Method.Cost): each call and notification its
// method's Cost, 1 for an unknown method, an invalid member or a message
// that does not parse, a response nothing. It parses msg, so a transport
// that must charge before it processes (an HTTP request answered 429)
// pays one parse more; a connection charged by the engine does not
// (engineconn.Conn.SetCharge).
func (e *Engine) MessageCost(msg []byte) int {
	if !e.frozen.Load() {
		e.Freeze()
	}
	s := e.getState()
	defer e.putState(s)
	m, err := s.p.Parse(msg)
	switch {
	case err != nil:
		return 1
	case e.forwards(m):
		return e.forwardCost(s, m)
	case m.Kind == decode.Batch:
		e.lookupBatch(s)
		return costOf(s, m, nil)
	}
	return costOf(s, m, e.lookup(s, m))
}
