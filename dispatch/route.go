package dispatch

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/engineconn"
)

// routed is a message that conn.Try parsed and did not run: see
// engineconn.Routed. It lives in the message's pooled state.
type routed struct {
	s     *state
	route engineconn.Route
	md    *method // a single message's method
	size  int     // the message's bytes
	batch int     // the batch's members (0: not a batch)
	fwd   bool    // for the Forwarder (forward.go)

	charged bool   // its client's rate was charged (forward_async.go)
	ans     Answer // for an AsyncForwarder (forward_async.go)
}

func (r *routed) Route() engineconn.Route { return r.route }

func (r *routed) Keep(buf []byte) []byte {
	in := r.s.p.Input()
	buf = append(buf[:0], in...)
	r.s.p.Moved(buf)
	return buf
}

// tryProcess is conn.Try under ctx: it runs msg here when everything in
// it may run here, else returns it parsed and routed (r, with dst
// unchanged). It works in the state *held, or a pooled one, and leaves
// its state in *held when done with it here (conn.Rest). quiet says that
// nothing the connection routed RouteOrdered is queued or running
// (conn.ordered): a notification of a learned method may then run here.
// The calls run here take their contexts from calls, the reading
// goroutine's arenas, not the state's.
func (e *Engine) tryProcess(ctx context.Context, p *policy, clk *readClock, calls *arenas, held **state, quiet bool, dst, msg []byte) ([]byte, *routed) {
	if !e.frozen.Load() {
		e.Freeze()
	}
	s := e.takeState(held)
	s.pol = p
	start := len(dst)
	m, err := s.p.Parse(msg)
	batch := 0
	switch {
	case err != nil:
		dst = e.appendParseError(s, dst, err)
	case e.forwards(m):
		if out, ok := e.forwardInline(ctx, p, s, dst, m); ok { // cache hits (forward_inline.go)
			dst = out
			if m.Kind == decode.Batch {
				batch = s.p.BatchLen()
			}
			break
		}
		r := e.routed(s, e.forwardRoute(m), nil, len(msg), 0)
		r.fwd = true
		return dst, r
	case m.Kind == decode.Batch:
		batch = s.p.BatchLen()
		route := e.lookupBatch(s)
		if !e.charged(p, s, m, nil, &dst) {
			break
		}
		if route != engineconn.RouteInline {
			return dst, e.routed(s, route, nil, len(msg), batch)
		}
		s.cc.useArenas(calls)
		dst = e.processBatch(ctx, s, dst, len(msg))
		s.cc.ar = nil
	default:
		md := e.lookup(s, m)
		if !e.charged(p, s, m, md, &dst) {
			break
		}
		// RouteOrdered (a notification of a method that may block): here
		// too, behind every one read before it, once the method has proved
		// quick and the queue is empty (quiet).
		if route := routeOf(m.Kind, md); route != engineconn.RouteInline && !(quiet && route == engineconn.RouteOrdered && md.cost.learned()) {
			return dst, e.routed(s, route, md, len(msg), 0)
		}
		s.cc.parent, s.cc.here, s.cc.clk = ctx, true, clk
		s.cc.useArenas(calls)
		dst = e.serve(&s.cc, dst, m, md)
		s.cc.here, s.cc.clk, s.cc.ar = false, nil, nil
		holdState(s, held)
		if e.obs != nil {
			e.obs.Message(len(msg), len(dst)-start, batch)
		}
		return dst, nil
	}
	clk.valid = false // something else ran: not timed from the end of the last run
	holdState(s, held)
	if e.obs != nil {
		e.obs.Message(len(msg), len(dst)-start, batch)
	}
	return dst, nil
}

// routed keeps s, holding a message parsed and not run, as a routed.
func (e *Engine) routed(s *state, route engineconn.Route, md *method, size, batch int) *routed {
	s.routed = routed{s: s, route: route, md: md, size: size, batch: batch}
	return &s.routed
}

// run runs the routed message r under ctx, appending its response to dst,
// and releases r.
func (e *Engine) run(ctx context.Context, dst []byte, r *routed) []byte {
	s := r.s
	start := len(dst)
	switch {
	case r.fwd:
		dst = e.forward(ctx, s.pol, s, dst, s.p.Message())
	case r.batch > 0:
		dst = e.processBatch(ctx, s, dst, r.size)
	default:
		s.cc.parent = ctx
		dst = e.serve(&s.cc, dst, s.p.Message(), r.md)
	}
	size, batch := r.size, r.batch
	e.releaseRouted(r)
	if e.obs != nil {
		e.obs.Message(size, len(dst)-start, batch)
	}
	return dst
}

// routeOf decides where one message of kind runs; md is its method. A
// call of a method that may block runs where it arrived once the method
// has proved quick (cost.go). A batch runs inline only when all its
// members do; one with ordered notifications runs on the serial queue so
// they keep their order (lookupBatch).
func routeOf(kind decode.Kind, md *method) engineconn.Route {
	switch {
	case md == nil || md.inline:
		return engineconn.RouteInline
	case md.concurrent:
		return engineconn.RouteWorker
	case kind == decode.Notification:
		return engineconn.RouteOrdered
	case kind == decode.Call && md.cost.learned(): // learnedQuick
		return engineconn.RouteInline
	}
	return engineconn.RouteWorker
}

// reject is conn.Reject.
func (e *Engine) reject(dst, msg []byte, code encode.Code) []byte {
	s := e.getState()
	defer e.putState(s)
	m, err := s.p.Parse(msg)
	if err != nil {
		e.observeReject(code)
		return e.appendParseError(s, dst, err)
	}
	return e.appendRejection(dst, s, m, code)
}

// rejectRouted is conn.RejectRouted.
func (e *Engine) rejectRouted(dst []byte, r *routed, code encode.Code) []byte {
	dst = e.appendRejection(dst, r.s, r.s.p.Message(), code)
	e.releaseRouted(r)
	return dst
}

// appendRejection answers m, the message just parsed into s, refused
// with code: each call in it (m, or its members) with code, invalid
// members as usual.
func (e *Engine) appendRejection(dst []byte, s *state, m *decode.Message, code encode.Code) []byte {
	e.observeReject(code)
	if m.Kind != decode.Batch {
		return e.appendRejected(dst, -1, m, code)
	}
	start := len(dst)
	dst = encode.AppendBatchStart(dst)
	for i := range s.p.BatchLen() {
		s.p.BatchMember(i, &s.cur)
		dst = e.appendRejected(dst, start, &s.cur, code)
	}
	return encode.FinishBatch(dst, start)
}

// appendRejected answers one message of a rejected message; start >= 0 is
// where its batch array begins.
func (e *Engine) appendRejected(dst []byte, start int, m *decode.Message, code encode.Code) []byte {
	if m.Kind != decode.Call && m.Kind != decode.Invalid {
		return dst
	}
	if start >= 0 {
		dst = encode.AppendBatchSep(dst, start)
	}
	if m.Kind == decode.Invalid {
		return e.appendInvalid(dst, m)
	}
	if ce := e.conditionError(code); ce != nil { // with the endpoint's code (Options.Codes)
		return encode.AppendErrorValue(dst, m.ID, ce)
	}
	return encode.AppendStdError(dst, m.ID, code)
}

// releaseRouted lets go of a routed message without running it.
func (e *Engine) releaseRouted(r *routed) {
	s := r.s
	s.routed = routed{}
	e.putState(s)
}
