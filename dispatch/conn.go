package dispatch

// NOTE: the transport-facing side of the engine. A transport (netserver, or
// one of your own) makes one Conn per connection: it carries the
// connection's context (cancelled when the connection fails), its Peer and
// the two views of that context the handlers run under, the workers' one and
// the reading goroutine's (where Peer.Call must fail rather than deadlock).
// Both views live inside the Conn, so they cost no allocation of their own.

import (
	"context"

	"github.com/jetrpc/jetrpc/internal/pool"
)

// Conn is the engine as one connection's transport sees it: it processes
// the connection's messages under the connection's context and gives its
// handlers the connection's Peer. Users who only register methods and call
// Process never need it; a transport makes one per connection with
// [NewConn] and calls [Conn.Close] when the connection ends.
//
// A transport reads a message and hands it to TryProcess. Cheap messages are
// answered at once; for the others TryProcess says where to run them
// (RouteWorker: on a worker, see Go; RouteOrdered: on the connection's own
// first-in-first-out queue, so that notifications keep their order), and the
// transport then runs Process there on a copy of the message.
type Conn struct {
	e       *Engine
	peer    Peer // valid when hasPeer: kept inside, it costs no allocation
	cancel  context.CancelFunc
	hasPeer bool
	ctx     connCtx // the handlers' context
	rctx    connCtx // the same, marked as the reading goroutine's
}

// NewConn returns the engine's side of a new connection. Its context derives
// from parent (the engine's context when nil). send writes one message to
// the client (see SendFunc); oneWay peers take notifications only (an SSE
// stream). A nil send gives a connection without a peer: PeerOf returns nil
// in its handlers.
func NewConn(e *Engine, parent context.Context, send SendFunc, oneWay bool) *Conn {
	if parent == nil {
		parent = e.ctx
	}
	base, cancel := context.WithCancel(parent)
	c := &Conn{e: e, cancel: cancel}
	if send != nil {
		c.peer.send, c.peer.oneWay, c.hasPeer = send, oneWay, true
		c.peer.obs = e.obs
	}
	c.ctx = connCtx{Context: base, c: c}
	c.rctx = connCtx{Context: base, c: c, reader: true}
	return c
}

// Context returns the context the connection's handlers run under; it is
// cancelled by Cancel and Close.
func (c *Conn) Context() context.Context { return &c.ctx }

// Peer returns the connection's peer (nil without one).
func (c *Conn) Peer() *Peer {
	if !c.hasPeer {
		return nil
	}
	return &c.peer
}

// TryProcess is the transport's entry point for a message read from the
// connection, on its reading goroutine. When everything msg would run is
// inline (cheap, non-blocking handlers; errors; responses to the peer's
// calls) it processes msg and returns dst with the response appended (dst
// unchanged when none is due) and RouteInline, with no goroutine hand-off.
// Otherwise it runs nothing and returns dst unchanged and the route on which
// the transport should run Process for a copy of msg.
func (c *Conn) TryProcess(dst, msg []byte) ([]byte, Route) {
	dst, r := c.e.tryProcess(&c.rctx, dst, msg)
	if r == nil {
		return dst, RouteInline
	}
	route := r.route
	c.e.releaseRouted(r)
	return dst, route
}

// Try is TryProcess for a transport that runs a routed message parsed
// already: when msg cannot run here it returns dst unchanged and the
// message parsed, to run on r.Route() with Run (after r.Keep if msg's
// buffer is to be reused), or to answer with RejectRouted. It is nil when
// msg ran here (its answer appended to dst).
func (c *Conn) Try(dst, msg []byte) ([]byte, *Routed) {
	return c.e.tryProcess(&c.rctx, dst, msg)
}

// Run runs a message Try routed, under the connection's context, appends
// its response to dst and releases r. A transport calls it off the reading
// goroutine, on r.Route().
func (c *Conn) Run(dst []byte, r *Routed) []byte { return c.e.run(&c.ctx, dst, r) }

// RejectRouted is Reject for a message Try routed; it releases r.
func (c *Conn) RejectRouted(dst []byte, r *Routed, code Code) []byte {
	return c.e.rejectRouted(dst, r, code)
}

// Process processes msg under the connection's context and appends its
// response to dst, like Engine.ProcessContext. A transport calls it off the
// reading goroutine, for a message TryProcess routed elsewhere.
func (c *Conn) Process(dst, msg []byte) []byte {
	return c.e.ProcessContext(&c.ctx, dst, msg)
}

// ProcessStream is Engine.ProcessStream under the connection's context.
func (c *Conn) ProcessStream(msg []byte, emit func(resp []byte)) {
	c.e.ProcessStream(&c.ctx, msg, emit)
}

// Reject appends the answer to a message that will not be run: every call in
// it gets an error with code (for example CodeOverloaded; an engine
// condition's code is answered as Options.Codes maps it) and its id, invalid
// members get -32600 as usual, notifications and responses nothing. It
// returns dst unchanged when no answer is due.
func (c *Conn) Reject(dst, msg []byte, code Code) []byte { return c.e.reject(dst, msg, code) }

// Go runs t on the engine's worker pool (the pool that also runs batch
// members; its size is Options.MaxWorkers). It returns false, without
// running t, when every worker is busy or the engine is closed.
func (c *Conn) Go(t pool.Task) bool { return c.e.workers.Submit(t) }

// Cancel cancels the context of the connection's handlers (the connection
// failed: their answers cannot be written).
func (c *Conn) Cancel() { c.cancel() }

// Close ends the connection's side of the engine: calls to the peer that are
// pending fail with ErrPeerClosed, and so do later ones, and the handlers'
// context is cancelled. A transport calls it once reading has ended and the
// answers it still wanted to write are written.
func (c *Conn) Close() {
	c.ClosePeer()
	c.cancel()
}

// ClosePeer fails the calls pending to the peer, and later ones, with
// ErrPeerClosed, leaving the handlers running: reading has ended, so no
// answer to them can arrive, but the answers to the client's calls still
// can be written.
func (c *Conn) ClosePeer() { c.Peer().Close() }

// connCtx is a Conn's context: the connection's cancelable context, which
// also answers PeerOf and marks the reading goroutine.
type connCtx struct {
	context.Context
	c      *Conn
	reader bool
}

func (x *connCtx) Value(key any) any {
	switch key.(type) {
	case peerKey:
		return x.c.Peer()
	case readerKey:
		if x.reader {
			return true
		}
		return nil
	}
	return x.Context.Value(key)
}
