package dispatch

// NOTE: the transport-facing side of the engine, behind the seam of
// internal/engineconn (a package only jetrpc's own transports import). A
// transport makes one conn per connection: it carries the
// connection's context (cancelled when the connection fails), its Peer and
// the two views of that context the handlers run under, the workers' one and
// the reading goroutine's (where Peer.Call must fail rather than deadlock).
// Both views live inside the conn, so they cost no allocation of their
// own, and so does the engineconn.Conn the transport holds (pub).

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/engineconn"
	"github.com/jetrpc/jetrpc/internal/pool"
)

func init() { engineconn.SetNewConn(newConn) }

// conn is the engine as one connection's transport sees it: see
// engineconn.Conn.
type conn struct {
	pub  engineconn.Conn // what the transport holds; its Impl is this conn
	e    *Engine
	peer Peer // valid when peer.send is set: kept inside, it costs no allocation
	// done is the connection's cancelable context, made when its Done is
	// first asked for (makeDone): an idle connection whose handlers never
	// wait on it carries no cancelCtx (about 140 bytes with its entry in
	// the parent's children). closed is set by Cancel and Close.
	done   atomic.Pointer[lazyDone]
	parent context.Context // what ctx derives from
	ctx    connCtx         // the handlers' context
	rctx   connCtx         // the same, marked as the reading goroutine's
	pol    *policy         // the methods served (the parent's MethodSetOf) and the rate charge; nil: the default
	// streamer offers a Streamer to a handler that takes its
	// ResultWriter (engineconn.StreamKey); nil: none.
	streamer engineconn.StreamSource
	clk      readClock // times the runs on the reading goroutine (Try)
	// calls are the arenas of the calls the reading goroutine runs (Try):
	// their parent is the connection's, where a pooled state's arenas
	// would change with every connection the state serves.
	calls arenas
	// held is the state the reading goroutine's last Try left, for its
	// next one; Rest gives it back to the pool (only the reading
	// goroutine touches it).
	held *state
	// ordered counts the messages Try routed to RouteOrdered that have not
	// finished (Run or RejectRouted): while it is 0, a notification of a
	// method that has proved quick runs on the reading goroutine, behind
	// every notification before it (route.go).
	ordered atomic.Int32
	closed  atomic.Bool // beside ordered: the two share a word
	// fwds are the forwards under way that Cancel ends (forward_async.go).
	fmu  sync.Mutex
	fwds *Answer
}

var _ engineconn.Impl = (*conn)(nil)

// newConn is engineconn.NewConn; e is an *Engine.
func newConn(te engineconn.Engine, parent context.Context, send engineconn.Sender, oneWay bool) *engineconn.Conn {
	e := te.(*Engine)
	if parent == nil {
		parent = e.ctx
	}
	c := &conn{e: e}
	if set := MethodSetOf(parent); set != nil && set.e == e { // once per connection
		c.pol = &set.pol
	}
	if send != nil {
		c.peer.send, c.peer.oneWay, c.peer.e = send, oneWay, e
	}
	c.parent = parent
	c.ctx, c.rctx = connCtx{c}, connCtx{c}
	c.pub.Impl = c
	return &c.pub
}

func (c *conn) Context() context.Context { return &c.ctx }

// getPeer returns the connection's peer (nil without one).
func (c *conn) getPeer() *Peer {
	if c.peer.send == nil {
		return nil
	}
	return &c.peer
}

func (c *conn) Try(dst, msg []byte) ([]byte, engineconn.Routed) {
	c.clk.valid = false // the reading goroutine may have waited since
	return c.TryBuffered(dst, msg)
}

func (c *conn) TryBuffered(dst, msg []byte) ([]byte, engineconn.Routed) {
	dst, r := c.e.tryProcess(&c.rctx, c.policy(), &c.clk, &c.calls, &c.held, c.ordered.Load() == 0, dst, msg)
	if r == nil {
		return dst, nil // not a nil *routed in an interface
	}
	if r.route == engineconn.RouteOrdered {
		c.ordered.Add(1)
	}
	c.clk.valid = false
	return dst, r
}

func (c *conn) Rest() {
	if s := c.held; s != nil {
		c.held = nil
		c.e.states.Put(s)
	}
}

func (c *conn) Run(dst []byte, r engineconn.Routed) []byte {
	rr := r.(*routed)
	ordered := rr.route == engineconn.RouteOrdered // read first: run releases rr
	dst = c.e.run(&c.ctx, dst, rr)
	if ordered {
		c.ordered.Add(-1)
	}
	return dst
}

func (c *conn) RejectRouted(dst []byte, r engineconn.Routed, code encode.Code) []byte {
	rr := r.(*routed)
	ordered := rr.route == engineconn.RouteOrdered
	dst = c.e.rejectRouted(dst, rr, code)
	if ordered {
		c.ordered.Add(-1)
	}
	return dst
}

func (c *conn) Process(dst, msg []byte) []byte {
	return c.e.process(&c.ctx, c.policy(), dst, msg)
}

func (c *conn) ProcessStream(msg []byte, emit func(resp []byte)) {
	c.e.processStream(&c.ctx, c.policy(), msg, emit)
}

// SetCharge gives the connection a policy of its own (one allocation),
// its set's with the charge.
func (c *conn) SetCharge(charge func(cost int) bool) {
	p := &policy{charge: charge}
	if c.pol != nil {
		p.set = c.pol.set
	}
	c.pol = p
}

// policy returns the connection's policy, nil when it is the default.
func (c *conn) policy() *policy { return c.pol }

func (c *conn) Reject(dst, msg []byte, code encode.Code) []byte { return c.e.reject(dst, msg, code) }

func (c *conn) Go(t pool.Task) bool { return c.e.workers.Submit(t) }

func (c *conn) ConditionCode(def encode.Code) encode.Code { return c.e.ConditionCode(def) }

func (c *conn) Cancel() { c.cancel() }

func (c *conn) SetStreamer(src engineconn.StreamSource) { c.streamer = src }

func (c *conn) Close() {
	c.ClosePeer()
	c.cancel()
}

// cancel ends the connection's context. Whichever of cancel and makeDone
// runs second cancels the context makeDone made.
func (c *conn) cancel() {
	c.closed.Store(true)
	if d := c.done.Load(); d != nil {
		d.cancel()
	}
	c.cancelForwards()
}

// makeDone makes the connection's cancelable context, a child of the
// parent, and returns its Done channel.
func (c *conn) makeDone() *lazyDone {
	ctx, cancel := context.WithCancel(c.parent)
	d := &lazyDone{ctx: ctx, cancel: cancel}
	if !c.done.CompareAndSwap(nil, d) {
		cancel()
		d = c.done.Load()
	}
	if c.closed.Load() {
		d.cancel()
	}
	return d
}

func (c *conn) ClosePeer() { c.getPeer().Close() }

// connCtx is a conn's context: the connection's cancelable context, which
// also answers PeerOf and marks the reading goroutine (it is c.rctx). Its
// parent is the conn's, so that the two take 8 bytes each of every
// connection (idle ones are counted in bytes).
type connCtx struct{ c *conn }

func (x *connCtx) Deadline() (time.Time, bool) { return x.c.parent.Deadline() }

func (x *connCtx) Value(key any) any {
	switch key.(type) {
	case peerKey:
		return x.c.getPeer()
	case readerKey:
		if x == &x.c.rctx {
			return true
		}
		return nil
	case engineconn.StreamKey:
		if x.c.streamer != nil {
			if s := x.c.streamer.Streamer(); s != nil {
				return s
			}
		}
		return x.c.parent.Value(key)
	}
	if d := x.c.done.Load(); d != nil {
		// The cancelable context's: context.WithCancel(x) and the rest
		// find its cancelCtx, whose channel is Done's, and register with
		// it rather than start a goroutine to watch x (they call Done
		// first, which makes it).
		return d.ctx.Value(key)
	}
	return x.c.parent.Value(key)
}

func (x *connCtx) Done() <-chan struct{} {
	if d := x.c.done.Load(); d != nil {
		return d.ctx.Done()
	}
	return x.c.makeDone().ctx.Done()
}

func (x *connCtx) Err() error {
	if d := x.c.done.Load(); d != nil {
		return d.ctx.Err()
	}
	if err := x.c.parent.Err(); err != nil {
		return err
	}
	if x.c.closed.Load() {
		return context.Canceled
	}
	return nil
}
