package dispatch

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
)

// Route tells a transport where a message should run (Conn.TryProcess).
type Route uint8

const (
	// RouteInline: the message was processed on the caller's goroutine.
	RouteInline Route = iota
	// RouteWorker: a call or batch that may block; run Conn.Process on a
	// worker goroutine (Conn.Go) so it blocks nothing else.
	RouteWorker
	// RouteOrdered: a notification of a non-concurrent method that may block
	// (or a batch holding one); run Conn.Process on the connection's serial
	// queue, in arrival order.
	RouteOrdered
)

// tryProcess is Conn.TryProcess under ctx.
func (e *Engine) tryProcess(ctx context.Context, dst, msg []byte) ([]byte, Route) {
	if !e.frozen.Load() {
		e.Freeze()
	}
	s := e.getState()
	start := len(dst)
	m, err := s.p.Parse(msg)
	route := RouteInline
	batch := 0
	switch {
	case err != nil:
		dst = e.appendParseError(s, dst, err)
	case m.Kind == decode.Batch:
		batch = s.p.BatchLen()
		if route = e.lookupBatch(s); route == RouteInline {
			dst = e.processBatch(ctx, s, dst, len(msg))
		}
	default:
		md := e.lookup(m)
		if route = routeOf(m.Kind, md); route == RouteInline {
			s.cc.parent, s.cc.here = ctx, true
			dst = e.processOne(&s.cc, dst, m, md)
			s.cc.here = false
		}
	}
	e.putState(s)
	if e.obs != nil && route == RouteInline {
		e.obs.Message(len(msg), len(dst)-start, batch)
	}
	return dst, route
}

// routeOf decides where one message of kind runs; md is its method. A
// call of a method that may block runs where it arrived once the method
// has proved quick (cost.go). A batch runs inline only when all its
// members do; one with ordered notifications runs on the serial queue so
// they keep their order (lookupBatch).
func routeOf(kind decode.Kind, md *method) Route {
	switch {
	case md == nil || md.inline || learnedQuick(kind, md):
		return RouteInline
	case kind == decode.Notification && !md.concurrent:
		return RouteOrdered
	}
	return RouteWorker
}

// reject is Conn.Reject.
func (e *Engine) reject(dst, msg []byte, code Code) []byte {
	e.observeReject(code)
	s := e.getState()
	defer e.putState(s)
	m, err := s.p.Parse(msg)
	switch {
	case err != nil:
		return e.appendParseError(s, dst, err)
	case m.Kind == decode.Batch:
		start := len(dst)
		dst = encode.AppendBatchStart(dst)
		for i := range s.p.BatchLen() {
			s.p.BatchMember(i, &s.cur)
			dst = e.appendRejected(dst, start, &s.cur, code)
		}
		return encode.FinishBatch(dst, start)
	}
	return e.appendRejected(dst, -1, m, code)
}

// appendRejected answers one message of a rejected message; start >= 0 is
// where its batch array begins.
func (e *Engine) appendRejected(dst []byte, start int, m *decode.Message, code Code) []byte {
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
