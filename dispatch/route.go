package dispatch

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/pool"
)

// Route tells a server where a message should run.
type Route uint8

const (
	// RouteInline: the message was processed on the caller's goroutine.
	RouteInline Route = iota
	// RouteWorker: a call or batch that may block; run ProcessContext on a
	// worker goroutine so it blocks nothing else.
	RouteWorker
	// RouteOrdered: a notification of a non-concurrent method that may block;
	// run ProcessContext on the connection's serial queue, in arrival order.
	RouteOrdered
)

// TryProcess is the server's entry point. When everything msg would run is
// inline (cheap, non-blocking handlers; errors; responses) it processes msg
// like ProcessContext and returns the extended dst and RouteInline, with no
// goroutine hand-off. Otherwise it runs nothing and returns dst unchanged and
// the route on which the caller should run ProcessContext for msg (msg must
// then be copied if its buffer is reused).
func (e *Engine) TryProcess(ctx context.Context, dst, msg []byte) ([]byte, Route) {
	if !e.frozen.Load() {
		e.Freeze()
	}
	s := e.getState()
	m, err := s.p.Parse(msg)
	route := RouteInline
	switch {
	case err != nil:
		dst = e.appendParseError(s, dst, err)
	case m.Kind == decode.Batch:
		ms := s.setMembers(e, ctx, s.p.Batch())
		if route = batchRoute(ms); route == RouteInline {
			dst = e.processBatch(s, ms, dst)
		}
	default:
		md := e.lookup(m)
		if route = routeOf(m, md); route == RouteInline {
			s.cc.Context = ctx
			dst = e.processOne(&s.cc, dst, m, md)
		}
	}
	e.putState(s)
	return dst, route
}

// routeOf decides where one message runs; md is its method.
func routeOf(m *decode.Message, md *method) Route {
	switch {
	case md == nil || md.inline:
		return RouteInline
	case m.Kind == decode.Notification && !md.concurrent:
		return RouteOrdered
	}
	return RouteWorker
}

// batchRoute: a batch runs inline only when all its members do; one with
// ordered notifications runs on the serial queue so they keep their order.
func batchRoute(ms []member) Route {
	route := RouteInline
	for i := range ms {
		switch routeOf(ms[i].m, ms[i].md) {
		case RouteWorker:
			if route == RouteInline {
				route = RouteWorker
			}
		case RouteOrdered:
			route = RouteOrdered
		}
	}
	return route
}

// Go runs t on the engine's worker pool (the pool that also runs batch
// members; its size is Options.MaxWorkers). It returns false, without
// running t, when every worker is busy or the engine is closed.
func (e *Engine) Go(t pool.Task) bool { return e.workers.Submit(t) }

// Reject appends the answer to a message that will not be run: every call in
// it gets an error with code (for example encode.CodeOverloaded) and its id,
// invalid members get -32600 as usual, notifications and responses nothing.
// It returns dst unchanged when no answer is due.
func (e *Engine) Reject(dst, msg []byte, code Code) []byte {
	s := e.getState()
	defer e.putState(s)
	m, err := s.p.Parse(msg)
	switch {
	case err != nil:
		return e.appendParseError(s, dst, err)
	case m.Kind == decode.Batch:
		start := len(dst)
		dst = encode.AppendBatchStart(dst)
		ms := s.p.Batch()
		for i := range ms {
			dst = e.appendRejected(dst, start, &ms[i], code)
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
	return encode.AppendStdError(dst, m.ID, code)
}
