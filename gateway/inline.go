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
// with the others the connection has ready. Anything else (a miss, a
// notification, a batch, a store that must ask a server) returns dst and
// false, and the call goes to Forward as before.
func (g *Gateway) ForwardInline(ctx context.Context, dst []byte, p *decode.Parser) ([]byte, bool) {
	if g.policy == nil {
		return dst, false
	}
	m := p.Message()
	if m.Kind != decode.Call {
		return dst, false
	}
	pk, ok := g.store.(cache.Peeker)
	if !ok {
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
