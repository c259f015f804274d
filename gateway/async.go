package gateway

// NOTE: a single call forwarded with no goroutine waiting for it
// (dispatch.AsyncForwarder). ForwardAsync, on the client connection's
// reading goroutine, routes the call, writes the answer's head into the
// Answer's buffer and starts a client.Forward whose result is appended
// right after it; the upstream's reader then runs ForwardDone, which
// finishes the answer (or the error, with the client's id), counts it and
// hands it to the Answer, which queues it on the client's connection and
// leaves its write to the reader's client.Later: the answers one upstream
// read makes ready go out in one write per client connection. The
// goroutine hand-offs of a call are thus two wake-ups that no proxy
// avoids (the upstream reader's, when the answer arrives, and the client
// connection's reader, when the call arrives), where the worker path adds
// a worker's wake-up, and the worker's again for the answer. Calls that
// need waiting go to Forward on a worker as before: an HTTP upstream, a
// hedged method, a subscription, a cache store outside the process, and
// retries, which leave the upstream reader for a goroutine of their own
// (client.Forward).

import (
	"context"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/gateway/cache"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
)

var _ dispatch.AsyncForwarder = (*Gateway)(nil)

// asyncCall is one call forwarded by ForwardAsync (its client.Completion).
type asyncCall struct {
	g       *Gateway
	r       *route
	a       *dispatch.Answer
	id      []byte // the client's, and the call's method and params: the message's, valid until a.Done
	method  []byte
	params  []byte
	start   int // where the answer begins in the buffer
	head    int // where the result goes
	t0      time.Duration
	timeout time.Duration
	ttl     time.Duration // cacheable: its answer is kept for ttl
	cache   bool
	key     []byte
}

var asyncCalls = sync.Pool{New: func() any { return new(asyncCall) }}

// epoch is the origin of the gateway's monotonic times.
var epoch = time.Now()

// mono reads the monotonic clock only.
func mono() time.Duration { return time.Since(epoch) }

// ForwardAsync forwards a single call without a goroutine waiting for it
// (dispatch.AsyncForwarder): on the client connection's reading goroutine
// it is routed and sent upstream, and the upstream connection's reader
// appends the answer to the client's connection. It declines (false) a
// call that must wait: one for a group with an HTTP upstream, a hedged
// method, a subscription, a cacheable call with a store outside the
// process; Forward takes those on a worker.
func (g *Gateway) ForwardAsync(ctx context.Context, p *decode.Parser, a *dispatch.Answer) bool {
	m := p.Message()
	if m.Kind != decode.Call {
		return false
	}
	r := g.t.lookup(m.Method)
	if r == nil {
		a.Done(encode.AppendStdError(a.Buf(), m.ID, encode.CodeMethodNotFound))
		return true
	}
	if subscribing(ctx, m, r) {
		return false
	}
	var ttl time.Duration
	cacheable := false
	if g.policy != nil {
		if ttl, cacheable = g.policy.TTL(m.Method, m.Params); cacheable && !g.local {
			return false // its Set may wait on a server
		}
	}
	op := asyncCalls.Get().(*asyncCall)
	f := r.group.Pool.NewForward(bytesconv.B2S(m.Method), op) // valid until a.Done
	if f == nil {
		asyncCalls.Put(op)
		return false
	}
	buf := a.Buf()
	start := len(buf)
	if !r.admit() {
		f.Drop()
		asyncCalls.Put(op)
		a.Done(encode.AppendStdError(buf, m.ID, encode.CodeLimitExceeded))
		return true
	}
	if !a.OnCancel(f, f.Token()) { // the connection is gone
		f.Drop()
		asyncCalls.Put(op)
		a.Done(buf)
		return true
	}
	*op = asyncCall{g: g, r: r, a: a, id: m.ID, method: m.Method, params: m.Params, start: start,
		timeout: g.timeout(r, m.Method), ttl: ttl, cache: cacheable, key: op.key[:0]}
	if cacheable {
		op.key = cache.Key(op.key, m.Method, m.Params)
	}
	buf = encode.AppendResultStart(buf, m.ID)
	op.head = len(buf)
	op.t0 = mono()
	f.Start(buf, m.Params, op.timeout)
	return true
}

// ForwardDone finishes the answer (client.Completion), on the goroutine
// that ended the call: the upstream's reader, most of the time.
func (op *asyncCall) ForwardDone(res []byte, err error, later *client.Later) {
	r, a := op.r, op.a
	r.calls.Add(1)
	r.latency.Add(int64(mono() - op.t0))
	var b []byte
	if err != nil {
		countError(r, err)
		b = appendFailure(res[:op.start], op.id, res[op.head:], err, op.timeout)
	} else {
		if op.cache && op.g.policy.Keep(op.method, op.params, res[op.head:]) {
			op.g.store.Set(op.key, res[op.head:], op.ttl)
		}
		b = encode.AppendResultEnd(res)
	}
	key := op.key[:0]
	if cap(key) > maxKeptKey {
		key = nil
	}
	*op = asyncCall{key: key}
	asyncCalls.Put(op)
	if later != nil {
		a.DoneLater(b, later)
		return
	}
	a.Done(b)
}

// maxKeptKey caps the cache key buffer an asyncCall keeps.
const maxKeptKey = 4 << 10

var _ client.Completion = (*asyncCall)(nil)
