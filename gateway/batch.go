package gateway

// NOTE: a batch in three passes. plan decides each member's answer that
// needs no upstream (invalid, unknown method, over its route's rate, a
// cache hit) and puts every other member in its group's sub-batch; send
// sends the sub-batches at once (all but the last on goroutines) and
// waits; answer writes the array in the members' order. A member whose
// sub-batch failed as a whole gets that failure as its own error; the
// others keep their answers. A batch with nothing to answer (only
// notifications) leaves dst unchanged, as PROTOCOL.md wants.

import (
	"context"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/gateway/cache"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
)

// slot is one member's answer.
type slot struct {
	m      *decode.Message
	r      *route
	answer answerKind
	code   encode.Code
	cached []byte // a cache hit (in fwdState.data)
	bc     *client.BatchCall
	sub    int // its sub-batch
	ttl    time.Duration
	keep   bool // a cacheable call: keep its answer
}

type answerKind uint8

const (
	answerNone        answerKind = iota // a notification, a response
	answerInvalid                       // -32600
	answerCode                          // an error with code
	answerCached                        // cached
	answerCall                          // the sub-batch's answer
	answerNoSubscribe                   // a subscription method: errNoSubscribe
)

// errNoSubscribe answers a subscription call (NS_subscribe,
// NS_unsubscribe) inside a batch, where a single one would be pinned to an
// upstream (subscribe.go): the batch's answer array is written after all
// its members are done, so a subscription's notifications could reach the
// client before its id; the client sends such calls alone.
const errNoSubscribe = "Subscriptions are not supported in batches: send the call alone"

// subBatch is the members of one group.
type subBatch struct {
	g       *Group
	b       *client.Batch
	r       *route // its first member's (the counters)
	timeout time.Duration
	err     error
	t0      time.Time
}

func (g *Gateway) forwardBatch(ctx context.Context, dst []byte, p *decode.Parser) []byte {
	st := g.states.Get().(*fwdState)
	defer g.releaseBatch(st)
	ms := p.Batch()
	due := g.plan(ctx, st, ms)
	g.send(ctx, st)
	if due == 0 {
		return dst
	}
	return g.answer(st, dst)
}

func (g *Gateway) releaseBatch(st *fwdState) {
	clear(st.slots)
	clear(st.subs)
	st.slots, st.subs, st.data = st.slots[:0], st.subs[:0], st.data[:0]
	g.states.Put(st)
}

// plan fills st.slots and st.subs; it returns the number of answers due.
func (g *Gateway) plan(ctx context.Context, st *fwdState, ms []decode.Message) int {
	due := 0
	for i := range ms {
		m := &ms[i]
		s := slot{m: m}
		call := m.Kind == decode.Call
		switch m.Kind {
		case decode.Invalid:
			s.answer = answerInvalid
		case decode.Call, decode.Notification:
			s.r = g.t.lookup(m.Method)
			switch {
			case s.r == nil:
				s.answer, s.code = answerCode, encode.CodeMethodNotFound
			case call && subscribing(ctx, m, s.r):
				s.answer = answerNoSubscribe
			case !s.r.admit():
				s.answer, s.code = answerCode, encode.CodeLimitExceeded
			case call && g.cached(st, &s):
			default:
				g.enqueue(st, &s)
			}
			if !call && s.answer != answerCall {
				s.answer = answerNone
			}
		}
		if s.answer != answerNone && (call || m.Kind == decode.Invalid) {
			due++
		}
		st.slots = append(st.slots, s)
	}
	return due
}

// cached answers s from the cache when its policy allows, or marks it to
// be kept.
func (g *Gateway) cached(st *fwdState, s *slot) bool {
	if g.policy == nil {
		return false
	}
	ttl, ok := g.policy.TTL(s.m.Method, s.m.Params)
	if !ok {
		return false
	}
	st.key = cache.Key(st.key[:0], s.m.Method, s.m.Params)
	start := len(st.data)
	out, hit := g.store.Get(st.data, st.key)
	if hit {
		st.data = out
		s.answer, s.cached = answerCached, out[start:]
		s.r.cacheHits.Add(1)
		return true
	}
	s.ttl, s.keep = ttl, true
	return false
}

// enqueue adds s to its group's sub-batch.
func (g *Gateway) enqueue(st *fwdState, s *slot) {
	s.sub = -1
	for i := range st.subs {
		if st.subs[i].g == s.r.group {
			s.sub = i
		}
	}
	if s.sub < 0 {
		s.sub = len(st.subs)
		st.subs = append(st.subs, subBatch{g: s.r.group, b: s.r.group.Pool.NewBatch(), r: s.r})
	}
	sb := &st.subs[s.sub]
	sb.timeout = max(sb.timeout, g.timeout(s.r, s.m.Method))
	s.r.calls.Add(1)
	method := bytesconv.B2S(s.m.Method) // used only until the batch is sent
	if s.m.Kind == decode.Call {
		s.answer, s.bc = answerCall, sb.b.CallRaw(method, s.m.Params)
	} else {
		s.answer = answerCall
		sb.b.NotifyRaw(method, s.m.Params)
	}
}

// send sends the sub-batches at once and waits for them.
func (g *Gateway) send(ctx context.Context, st *fwdState) {
	for i := range st.subs {
		sb := &st.subs[i]
		if i == len(st.subs)-1 {
			sb.send(ctx)
			break
		}
		st.wg.Go(func() { sb.send(ctx) })
	}
	st.wg.Wait()
}

func (sb *subBatch) send(ctx context.Context) {
	sb.t0 = time.Now()
	if sb.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, sb.timeout)
		defer cancel()
	}
	sb.err = sb.b.Send(ctx)
	sb.r.latency.Add(int64(time.Since(sb.t0)))
}

// answer appends the batch's answer array.
func (g *Gateway) answer(st *fwdState, dst []byte) []byte {
	start := len(dst)
	dst = encode.AppendBatchStart(dst)
	for i := range st.slots {
		s := &st.slots[i]
		if s.m.Kind != decode.Call && s.m.Kind != decode.Invalid || s.answer == answerNone {
			continue
		}
		dst = encode.AppendBatchSep(dst, start)
		switch s.answer {
		case answerInvalid:
			dst = encode.AppendError(dst, s.m.ID, encode.CodeInvalidRequest, encode.CodeInvalidRequest.String(),
				encode.AppendString(nil, s.m.Reason.String()))
		case answerCode:
			dst = encode.AppendStdError(dst, s.m.ID, s.code)
		case answerNoSubscribe:
			dst = encode.AppendError(dst, s.m.ID, encode.CodeServerError, errNoSubscribe, nil)
		case answerCached:
			dst = encode.AppendResult(dst, s.m.ID, s.cached)
		case answerCall:
			if err := s.bc.Err(); err != nil {
				countError(s.r, err)
				dst = appendFailure(dst, s.m.ID, s.bc.RawError(), err, st.subs[s.sub].timeout)
				continue
			}
			raw := s.bc.Raw()
			if s.keep && g.policy.Keep(s.m.Method, s.m.Params, raw) {
				g.store.Set(cache.Key(st.key[:0], s.m.Method, s.m.Params), raw, s.ttl)
			}
			dst = encode.AppendResult(dst, s.m.ID, raw)
		}
	}
	return encode.FinishBatch(dst, start)
}
