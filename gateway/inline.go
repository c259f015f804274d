package gateway

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/gateway/cache"
)

var _ dispatch.InlineForwarder = (*Gateway)(nil)

// ForwardInline answers a single call from the cache when its store holds
// the answer in this process (cache.Peeker: the Memory store, natskv's
// front cache), without waiting for anything, so the engine can answer it
// on the connection's reading goroutine (dispatch.InlineForwarder) as it
// answers a quick method: no worker hand-off, and the answer is written
// with the others the connection has ready. A batch whose members are all
// calls the store holds is answered so too. Anything else (a miss, a
// notification, a store that must ask a server) returns dst and false,
// and the message goes to Forward as before.
func (g *Gateway) ForwardInline(ctx context.Context, dst []byte, p *decode.Parser) ([]byte, bool) {
	if g.policy == nil {
		return dst, false
	}
	pk, ok := g.store.(cache.Peeker)
	if !ok {
		return dst, false
	}
	m := p.Message()
	if m.Kind == decode.Batch {
		return g.batchInline(ctx, dst, p, pk)
	}
	if m.Kind != decode.Call {
		return dst, false
	}
	r := g.t.lookup(m.Method)
	if r == nil {
		return dst, false
	}
	if _, cacheable := g.policy.TTL(m.Method, m.Params); !cacheable {
		return dst, false
	}
	st := g.states.Get().(*fwdState)
	defer g.states.Put(st)
	st.key = cache.Key(st.key[:0], m.Method, m.Params)
	start := len(dst)
	dst = encode.AppendResultStart(dst, m.ID)
	out, hit := pk.Peek(dst, st.key)
	if !hit {
		return dst[:start], false
	}
	if !r.admit() { // the route's rate: as Forward would answer it
		return encode.AppendStdError(dst[:start], m.ID, encode.CodeLimitExceeded), true
	}
	r.cacheHits.Add(1)
	return encode.AppendResultEnd(out), true
}

// batchInline answers a batch from the cache when every member is a call
// the store holds, as forwardBatch would (a member over its route's rate
// gets its own error); else it returns dst and false, having spent no
// rate.
func (g *Gateway) batchInline(ctx context.Context, dst []byte, p *decode.Parser, pk cache.Peeker) ([]byte, bool) {
	ms := p.Batch()
	for i := range ms {
		m := &ms[i]
		if m.Kind != decode.Call || g.t.lookup(m.Method) == nil {
			return dst, false
		}
		if _, ok := g.policy.TTL(m.Method, m.Params); !ok {
			return dst, false
		}
	}
	st := g.states.Get().(*fwdState)
	defer g.releaseBatch(st)
	for i := range ms {
		m := &ms[i]
		st.key = cache.Key(st.key[:0], m.Method, m.Params)
		start := len(st.data)
		out, hit := pk.Peek(st.data, st.key)
		if !hit {
			return dst, false
		}
		st.data = out
		st.slots = append(st.slots, slot{m: m, r: g.t.lookup(m.Method), answer: answerCached})
		st.slots[i].cached = out[start:] // st.data may move: fixed below
	}
	off := 0
	for i := range st.slots { // the slices into st.data, now that it stays
		s := &st.slots[i]
		n := len(s.cached)
		s.cached = st.data[off : off+n]
		off += n
		if !s.r.admit() {
			s.answer, s.code = answerCode, encode.CodeLimitExceeded
			continue
		}
		s.r.cacheHits.Add(1)
	}
	return g.answer(st, dst), true
}
