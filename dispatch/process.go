package dispatch

import (
	"context"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/scan"
)

// Process appends the response to msg, one complete message (single or
// batch), onto dst and returns it. It returns dst unchanged when no response
// is due (notifications, a batch of only notifications, responses). Handler
// contexts derive from the engine's context. Safe for concurrent use.
func (e *Engine) Process(dst, msg []byte) []byte {
	return e.ProcessContext(e.ctx, dst, msg)
}

// ProcessContext is Process with ctx as the parent of the handlers' contexts
// (a server passes a context cancelled on shutdown or disconnect).
func (e *Engine) ProcessContext(ctx context.Context, dst, msg []byte) []byte {
	return e.process(ctx, nil, dst, msg)
}

// process is ProcessContext under the policy p (nil: the default).
func (e *Engine) process(ctx context.Context, p *policy, dst, msg []byte) []byte {
	if !e.frozen.Load() {
		e.Freeze()
	}
	s := e.getState()
	s.pol = p
	start := len(dst)
	m, err := s.p.Parse(msg)
	batch := 0
	switch {
	case err == nil && e.forwards(m):
		dst = e.forward(ctx, p, s, dst, m)
	case err == nil && m.Kind == decode.Batch:
		batch = s.p.BatchLen()
		e.lookupBatch(s)
		if e.charged(p, s, m, nil, &dst) {
			dst = e.processBatch(ctx, s, dst, len(msg))
		}
	case err != nil:
		dst = e.appendParseError(s, dst, err)
	default:
		if md := e.lookup(s, m); e.charged(p, s, m, md, &dst) {
			dst = e.serveIn(ctx, s, dst, m, md)
		}
	}
	e.putState(s)
	e.observeMessage(len(msg), len(dst)-start, batch)
	return dst
}

// serveIn serves m, the message just parsed into s, of method md
// (e.lookup's), under ctx.
func (e *Engine) serveIn(ctx context.Context, s *state, dst []byte, m *decode.Message, md *method) []byte {
	s.cc.parent = ctx
	return e.serve(&s.cc, dst, m, md)
}

// lookup returns the method a Call or Notification names, or nil; a
// method outside s's MethodSet is none.
func (e *Engine) lookup(s *state, m *decode.Message) *method {
	if m.Kind != decode.Call && m.Kind != decode.Notification {
		return nil
	}
	md := e.table.lookup(m.Method)
	if md != nil && !s.pol.serves(md) {
		return nil
	}
	return md
}

// serveNone answers a message that runs no method: a Call or Notification
// of a method the engine does not have, an invalid one, or a Response.
func (e *Engine) serveNone(cc *callCtx, dst []byte, m *decode.Message) []byte {
	switch m.Kind {
	case decode.Call, decode.Notification:
		if e.obs != nil {
			e.observeUnknown(cc, m)
		}
		if m.Kind == decode.Notification {
			return dst
		}
		return encode.AppendStdError(dst, m.ID, encode.CodeMethodNotFound)
	case decode.Invalid:
		return e.appendInvalid(dst, m)
	default: // a Response: to a call of the connection's Peer, or dropped
		if !deliverToPeer(cc.parent, m) {
			e.dropped.Add(1)
			e.observe(EventDropped)
		}
		return dst
	}
}

// appendInvalid answers an Invalid Request, with error.data saying why.
func (e *Engine) appendInvalid(dst []byte, m *decode.Message) []byte {
	if e.obs != nil {
		e.observeInvalid(m.Reason)
	}
	return encode.AppendError(dst, m.ID, encode.CodeInvalidRequest,
		encode.CodeInvalidRequest.String(), e.invalidData[m.Reason])
}

// serve appends the response to one classified message, if one is due:
// it runs md, the method of a Call or Notification (e.lookup(m)), or
// answers a message that runs none (md nil: serveNone).
func (e *Engine) serve(cc *callCtx, dst []byte, m *decode.Message, md *method) []byte {
	if md == nil {
		return e.serveNone(cc, dst, m)
	}
	if md.streams && m.Kind == decode.Call && !cc.inBatch {
		if s := detacher(cc.parent); s != nil { // result_detach.go
			return e.serveDetached(cc, dst, m, md, s)
		}
	}
	var h *ctxCell
	if md.timeout > 0 {
		h = cc.takeTimed(md.timeout)
	} else if h = cc.next(); h == nil {
		h = cc.take()
	}
	rc := cc.rc
	rc.start(md, m, cc.inBatch)
	notification := m.Kind == decode.Notification
	start, mark := len(dst), 0
	var window []byte // where the handler appends its result
	if notification {
		// Its result, if any, is dropped: it may go to the caller's
		// scratch buffer (never kept from what the handler returns, which
		// may be any slice, its params too).
		if cc.drop == nil {
			cc.drop = make([]byte, 0, dropRoom)
		}
		window = cc.drop[:0]
	} else {
		dst = encode.AppendResultStart(dst, m.ID)
		mark = len(dst)
		window = dst[mark:mark]
	}
	var out []byte
	var err error
	if md.direct && cc.clk == nil { // nothing to time, bound or observe
		out, err = e.call(md, h, m.Params, window)
	} else {
		out, err = e.observed(md, cc, h, m, window)
	}
	// The call is over: its context is done from now on.
	var w *ResultWriter
	replied := false
	if !rc.ended(h) { // a reader in, Done asked for, the ResultWriter taken or Peer.Reply used
		if w = rc.writer(); w != nil && notification {
			w.release()
		}
		replied = rc.endSlow()
	}
	switch {
	case notification:
		return dst
	case w != nil: // the handler took its ResultWriter
		return e.endWritten(w, dst, start, mark, m.ID, out, err, replied)
	case replied: // the handler sent its response itself (Peer.Reply)
		return dst[:start]
	case err != nil:
		return e.appendHandlerError(dst[:start], m.ID, err)
	}
	ok := true
	if inPlace(dst, mark, out) && (md.trusted || scan.Int(out)) {
		dst = dst[:mark+len(out)] // the fast path: in place, a bare integer
	} else {
		dst, ok = e.placeResult(dst, mark, out, m.Params, md)
	}
	switch {
	case !ok:
		return encode.AppendErrorValue(dst[:start], m.ID, e.errResult)
	case len(dst)-start >= e.maxResp: // with the closing brace, over it
		return e.appendRespTooLarge(dst[:start], m.ID)
	}
	return encode.AppendResultEnd(dst)
}

// observed runs md's handler for serve (into window) when there is more
// to it than the call: its observer's Begin and End, timing, a timeout, a
// reading goroutine's clock. Observing is one function (no beginCall and
// endCall of its own) and calls a bare handler directly: with random
// inlined, that took 5.7% off a small call under a TimingObserver that
// does nothing (147.1 -> 138.8 ns, 8 alternating runs).
func (e *Engine) observed(md *method, cc *callCtx, h *ctxCell, m *decode.Message, window []byte) ([]byte, error) {
	obs := md.obs
	if obs == nil {
		out, _, err := e.invoke(md, cc, h, m.Params, window, noTime)
		return out, err
	}
	// A TimingObserver that asked for one call in n (timeMask) has each
	// method's first warmCalls calls timed, then one in n at random: that
	// one is Sampled, the others Untimed, and counted by the engine when
	// it is a CountingObserver (md.counts).
	timed, sampled := true, false
	switch {
	case md.timeMask == 0:
	case md.warm.Load() < warmCalls:
		md.warm.Add(1) // warming up: timed, and counts for itself
	case cc.random()&md.timeMask == 0:
		sampled = true
	default:
		timed = false
	}
	counted := !timed && md.counts != nil
	t0 := noTime
	switch {
	case counted:
		md.counts.AddStarted()
	case timed:
		obs.Begin(h)
		t0 = e.now()
	default:
		obs.Begin(h)
	}
	var out []byte
	var err error
	d := noTime // how long it ran, if invoke timed it: from t0, so the clock is read twice, not four times
	if md.bare && cc.clk == nil {
		out, err = e.call(md, h, m.Params, window)
	} else {
		out, d, err = e.invoke(md, cc, h, m.Params, window, t0)
	}
	if counted && err == nil {
		md.counts.AddEnded()
		return out, nil
	}
	c := CallEnd{Notification: m.Kind == decode.Notification, Params: m.Params, Sampled: sampled}
	switch {
	case err != nil:
		c.Code = CodeOf(err)
	case !c.Notification:
		c.ResultSize = len(out)
	}
	switch {
	case t0 == noTime: // not sampled (even if invoke timed it: a sample stands for others)
		c.Untimed = true
	case d != noTime:
		c.Duration = d
	default:
		c.Duration = max(e.now()-t0, 0)
	}
	obs.End(h, c) // h is not over yet: it still holds the request's bytes
	return out, err
}

// appendRespTooLarge answers a call whose response would go over
// MaxResponse.
func (e *Engine) appendRespTooLarge(dst, id []byte) []byte {
	e.observe(EventResponseTooLarge)
	return encode.AppendErrorValue(dst, id, e.errRespSize)
}

// dropRoom is the room a notification's handler finds for the result
// that is dropped.
const dropRoom = 64

// resultDepth is the deepest nesting a result may have: decode's limit,
// so that the engine never sends what its decoder (and its client's)
// refuses.
const resultDepth = decode.DefaultMaxDepth

// placeResult puts the result out, which the handler returned for the
// window dst[mark:mark], at dst[mark:] and checks it is one valid JSON
// value (unless md's results are trusted). A result appended within the
// window's capacity is in place already (inPlace); anything else is
// copied in. It reports false for an invalid result, logged once
// a minute per method.
func (e *Engine) placeResult(dst []byte, mark int, out, params []byte, md *method) ([]byte, bool) {
	n := len(out)
	if n == 0 {
		return append(dst[:mark], "null"...), true
	}
	if inPlace(dst, mark, out) {
		dst = dst[:mark+n] // dst extended in place: the fast path
	} else {
		dst = append(dst[:mark], out...)
	}
	// The params were validated with the message: a result that is the
	// params, byte for byte (an echo, a pass-through), needs no check.
	trusted := md.trusted || n == len(params) && string(dst[mark:]) == string(params)
	if trusted || decode.Valid(dst[mark:], resultDepth) {
		return dst, true
	}
	e.logBadResult(md, dst[mark:])
	return dst, false
}

// inPlace reports whether out, a handler's result for the window
// dst[mark:mark], is that window extended within dst's capacity: the same
// first byte, which the length alone cannot tell (a fresh slice can be of
// any length).
func inPlace(dst []byte, mark int, out []byte) bool {
	n := len(out)
	return n > 0 && n <= cap(dst)-mark && &dst[mark:cap(dst)][0] == &out[0]
}

// logBadResult logs a result that is not valid JSON, once a minute per
// method.
func (e *Engine) logBadResult(md *method, result []byte) {
	now := time.Now().UnixNano()
	last := md.badResult.Load()
	if now-last < int64(time.Minute) && last != 0 || !md.badResult.CompareAndSwap(last, now) {
		return
	}
	const show = 64
	e.log.Error("jetrpc: handler returned a result that is not one valid JSON value; answered -32603",
		"method", md.name, "bytes", len(result), "start", string(result[:min(len(result), show)]))
}

// invoke calls the handler, under its timeout when it has one (Timeout,
// CallTimeout); the runs of a method that may block are timed (cost.go).
// t0 is when the call started, if the observer read the clock (else
// noTime); d is how long it ran, if invoke timed it (else noTime), so that
// a call timed for both reads the clock twice, not four times. On a reading
// goroutine (cc.clk) a run in a burst is timed from the end of the one
// before it: one clock read (readClock).
func (e *Engine) invoke(md *method, cc *callCtx, h *ctxCell, params, dst []byte, t0 time.Duration) (out []byte, d time.Duration, err error) {
	timed := !md.inline && !md.concurrent && md.cost.timed(cc)
	clk := cc.clk
	borrowed := false // t0 is the end of the run before (readClock)
	if clk != nil {
		if timed && t0 == noTime {
			t0, borrowed = clk.start(e)
		}
		clk.valid = false // until this run's end is known
	} else if timed && t0 == noTime {
		t0 = e.now()
	}
	if md.timeout > 0 {
		out, err = e.invokeTimed(md, h, params, dst)
	} else {
		out, err = e.call(md, h, params, dst)
	}
	if !timed {
		return out, noTime, err
	}
	end := e.now()
	d = max(end-t0, 0)
	if clk != nil {
		clk.last, clk.valid = end, true
		clk.exact = d > quickRun // time the next run on its own (readClock)
		if borrowed && clk.exact {
			return out, d, err // not counted: the slow part may have been before the run
		}
	}
	md.cost.record(d)
	return out, d, err
}

// invokeTimed calls a handler under md's timeout: its context is cancelled
// when the time is up, and a call that overran is a timeout whatever the
// handler returned. The deadline is h's parent, kept beside h in its
// arena (callCtx.takeTimed): no allocation but the arena's, and no timer
// unless the handler waits on its Done (TestPolicyAllocs).
func (e *Engine) invokeTimed(md *method, h *ctxCell, params, dst []byte) ([]byte, error) {
	dc := h.deadline()
	out, err := e.call(md, h, params, dst)
	if dc.Err() == context.DeadlineExceeded && dc.Context.Err() == nil {
		out, err = dst, md.errTimeout
		e.observe(EventTimeout)
	}
	return out, err
}

// call calls the handler, turning a panic into an Internal error.
// A handler that panicked returns no result (out is nil): its answer is
// the error. The deferred function holds as little as it can (md and
// err), since it is set up on every call.
func (e *Engine) call(md *method, h *ctxCell, params, dst []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = md.panicked(r)
		}
	}()
	if md.fn != nil {
		return md.fn(h, params, dst)
	}
	return md.h.ServeRPC(h, params, dst)
}

// panicked logs that md's handler panicked with r (recovered in call)
// and returns the error its call is answered.
func (md *method) panicked(r any) error {
	md.e.log.Error("jetrpc: handler panicked", "method", md.name, "panic", r, "stack", string(debug.Stack()))
	return errPanic
}

var errPanic = encode.NewError(encode.CodeInternalError, encode.CodeInternalError.String(),
	[]byte(`"handler panicked"`))

// appendHandlerError appends the error response for a handler's error. A
// context's error is the engine's condition (timeout, shutting down), with
// the endpoint's code for it (Options.Codes).
func (e *Engine) appendHandlerError(dst, id []byte, err error) []byte {
	if re, ok := err.(*encode.Error); ok {
		return encode.AppendErrorValue(dst, id, re)
	}
	if ce := e.conditionFor(err); ce != nil { // a condition a handler or middleware names
		return encode.AppendErrorValue(dst, id, ce)
	}
	switch re, code := classify(err); {
	case re != nil:
		return encode.AppendErrorValue(dst, id, re)
	case code != encode.CodeInternalError:
		return encode.AppendErrorValue(dst, id, e.conditionError(code))
	}
	data := encode.AppendString(nil, err.Error())
	return encode.AppendError(dst, id, encode.CodeInternalError, encode.CodeInternalError.String(), data)
}

// appendParseError answers bytes that are not one valid JSON value. Nesting
// deeper than MaxDepth is a parse error too, with error.data naming the
// limit: the scanner gave up there, so it cannot claim the rest was JSON.
func (e *Engine) appendParseError(s *state, dst []byte, err error) []byte {
	se, _ := err.(*decode.SyntaxError)
	if se != nil && se.Err == decode.ErrDepth {
		e.observe(EventTooDeep)
		return encode.AppendError(dst, nil, encode.CodeParseError,
			encode.CodeParseError.String(), e.depthData)
	}
	e.observe(EventParseError)
	s.scratch = append(s.scratch[:0], '"')
	s.scratch = append(s.scratch, "invalid JSON"...)
	if se != nil {
		if se.Err == decode.ErrUTF8 {
			s.scratch = append(s.scratch[:0], `"invalid UTF-8`...)
		}
		s.scratch = append(s.scratch, " at offset "...)
		s.scratch = strconv.AppendInt(s.scratch, int64(se.Offset), 10)
	}
	s.scratch = append(s.scratch, '"')
	return encode.AppendError(dst, nil, encode.CodeParseError, encode.CodeParseError.String(), s.scratch)
}
