package dispatch

// NOTE: a forwarded call answered later, without a worker. On a stream
// connection (netserver's core: TCP, Unix sockets, WebSocket) Try routes a
// single call for an AsyncForwarder to RouteAsync; the transport keeps its
// bytes and calls Conn.Start on its reading goroutine, which charges the
// call and hands it to ForwardAsync with an Answer, the routed message's
// own (no allocation). Whoever ends the forward (a gateway's upstream
// reader, typically) calls Answer.Done, which checks MaxResponse, releases
// the routed message and hands the response to the transport's Finisher,
// which queues it like a worker's. The connection keeps the Answers that
// asked for it (OnCancel) in a list, so that Cancel (the connection
// failed, or is shutting down) can end them; their Cancel runs on a
// goroutine of its own, since the transport calls Cancel holding its
// output lock, which the answers then take.

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/engineconn"
)

// AsyncForwarder is a Forwarder that can forward a single call without a
// goroutine waiting for its answer: package gateway does, when its
// upstreams are streams or WebSockets. On a stream connection the engine
// offers every single call to ForwardAsync first, on the connection's
// reading goroutine; the answer then goes to the connection's output from
// wherever it comes (the upstream's reader), with no worker in between.
// HTTP requests, batches and notifications go to Forward as before.
type AsyncForwarder interface {
	Forwarder
	// ForwardAsync takes the call p holds (p.Message(), a Call) and
	// returns true: its answer, appended to a.Buf(), must then be handed
	// to a.Done exactly once, from any goroutine, maybe before
	// ForwardAsync returns. It returns false, having done nothing (no
	// rate spent, no a.OnCancel), when the call must go to Forward
	// instead. It must not block (it runs on the reading goroutine). p,
	// its message's slices and ctx stay valid until a.Done.
	ForwardAsync(ctx context.Context, p *decode.Parser, a *Answer) bool
}

// Canceler ends a forward that is under way: Cancel(token) makes its
// answer come soon (an error) unless it is under way already. A late call,
// after the forward ended, must do nothing; token tells the uses of a
// pooled forward apart (client.Forward is one).
type Canceler interface {
	Cancel(token uint64)
}

// Answer is where the answer to one call forwarded by an AsyncForwarder
// goes. It belongs to the engine; it is valid from ForwardAsync until
// Done.
type Answer struct {
	c     *conn
	r     *routed
	fin   engineconn.Finisher
	buf   []byte
	start int

	cancel     Canceler
	token      uint64
	prev, next *Answer // in c.fwds, when linked
	linked     bool
}

// Buf returns the buffer to append the answer to (it may hold the
// transport's frame prefix): the answer goes after its end, as a
// Forwarder's goes after dst.
func (a *Answer) Buf() []byte { return a.buf }

// OnCancel asks for cn.Cancel(token) if the connection is cancelled (it
// failed, or shuts down) before Done. Call it before the forward can end.
// It returns false when the connection is cancelled already: then end the
// forward at once (Done, with any answer: it goes nowhere).
func (a *Answer) OnCancel(cn Canceler, token uint64) bool {
	c := a.c
	c.fmu.Lock()
	defer c.fmu.Unlock()
	if c.closed.Load() {
		return false
	}
	a.cancel, a.token, a.linked = cn, token, true
	a.prev, a.next = nil, c.fwds
	if c.fwds != nil {
		c.fwds.prev = a
	}
	c.fwds = a
	return true
}

// Done hands over b, Buf() with the answer appended (unchanged: no answer
// is due). The Answer and the message are the engine's again.
func (a *Answer) Done(b []byte) { a.DoneLater(b, nil) }

// Deferrer takes work to run a little later on the goroutine that calls
// Answer.DoneLater: client.Later is one (an upstream's reader, which runs
// it once it has delivered what it read).
type Deferrer interface {
	// Defer has f.Flush called later on that goroutine, once however
	// often it is deferred.
	Defer(f interface{ Flush() })
}

// DoneLater is Done from a goroutine that will soon have more answers to
// hand over (an upstream's reader): the answer's write may be left to
// later, so that one write carries the answers of one read. later may be
// nil: Done.
func (a *Answer) DoneLater(b []byte, later Deferrer) {
	c, r, fin, start := a.c, a.r, a.fin, a.start
	if a.linked {
		c.untrack(a)
	}
	e := c.e
	m := r.s.p.Message()
	if m.Kind == decode.Call && len(b)-start >= e.maxResp && len(b) > start {
		b = e.appendRespTooLarge(b[:start], m.ID)
	}
	size := r.size
	e.releaseRouted(r)
	if e.obs != nil {
		e.obs.Message(size, len(b)-start, 0)
	}
	var d engineconn.Deferrer
	if later != nil {
		d = later
	}
	fin.Finish(b, d)
}

// untrack takes a out of c's list.
func (c *conn) untrack(a *Answer) {
	c.fmu.Lock()
	if a.linked {
		if a.prev != nil {
			a.prev.next = a.next
		} else {
			c.fwds = a.next
		}
		if a.next != nil {
			a.next.prev = a.prev
		}
		a.prev, a.next, a.linked = nil, nil, false
	}
	c.fmu.Unlock()
}

// cancelForwards cancels the forwards under way, on a goroutine of their
// own (the caller may hold the transport's lock, which their answers
// take). c.closed is set.
func (c *conn) cancelForwards() {
	type pending struct {
		cn    Canceler
		token uint64
	}
	c.fmu.Lock()
	var list []pending
	for a := c.fwds; a != nil; a = a.next {
		list = append(list, pending{a.cancel, a.token})
	}
	c.fmu.Unlock()
	if len(list) == 0 {
		return
	}
	go func() {
		for _, p := range list {
			p.cn.Cancel(p.token)
		}
	}()
}

// asyncRoute is where a forwarded call goes on a stream connection: to
// Start, when the Forwarder is an AsyncForwarder.
func (e *Engine) forwardRoute(m *decode.Message) engineconn.Route {
	switch m.Kind {
	case decode.Notification:
		return engineconn.RouteOrdered
	case decode.Call:
		if _, ok := e.fwd.(AsyncForwarder); ok {
			return engineconn.RouteAsync
		}
	}
	return engineconn.RouteWorker
}

// Start is engineconn.Conn.Start.
func (c *conn) Start(dst []byte, r engineconn.Routed, f engineconn.Finisher) bool {
	return c.e.startForward(&c.ctx, c, dst, r.(*routed), f)
}

// startForward charges the routed call r and hands it to the
// AsyncForwarder, its answer to go to f.
func (e *Engine) startForward(ctx context.Context, c *conn, dst []byte, r *routed, f engineconn.Finisher) bool {
	af, ok := e.fwd.(AsyncForwarder)
	if !ok || !r.fwd {
		return false
	}
	s := r.s
	m := s.p.Message()
	r.ans = Answer{c: c, r: r, fin: f, buf: dst, start: len(dst)}
	if p := s.pol; p != nil && p.charge != nil && !r.charged {
		r.charged = true // once, should the call go to Forward after all
		if n := e.forwardCost(s, m); n > 0 && !p.charge(n) {
			r.ans.Done(e.appendRejection(dst, s, m, encode.CodeLimitExceeded))
			return true
		}
	}
	if af.ForwardAsync(ctx, &s.p, &r.ans) {
		return true
	}
	r.ans = Answer{}
	return false
}
