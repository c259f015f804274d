package dispatch

// NOTE: the handler's context. Every call gets a reqCtx of its own, which
// stays a valid context.Context after the call: done once the call ended,
// its RequestID, MethodName and Meta nil from then on. A reqCtx is never
// reused, so a kept context can never show a later call's values; its
// fields are written before its handler sees it and never again, and only
// life (and the lazily made done) change afterwards, atomically.
//
// So that this costs no allocation per call, a pooled state hands out
// reqCtxs from a chunk of handleChunk of them, allocated together
// (state.handle): one allocation of 4 KiB every handleChunk (64) calls
// of the state, which the garbage collector frees once no kept context
// points into it. Done makes its channel only when it is first called (a
// handler that never waits on ctx pays nothing for it).
//
// With Options.ReuseContexts a call context is reused instead: each
// state and batch slot has one (callCtx.own), and every call it runs gets
// it anew. Nothing is allocated then, but a handler must not use its
// context after it returned.
//
// callCtx is the other half: the per-goroutine working state of the calls
// run by one state or batch slot (their parent context, whether they are
// batch members, the sampling tick). It is pooled and never handed out.
//
// A call under a timeout (Method.Timeout, CallTimeout) gets a deadlineCtx
// as its parent: the parent with the deadline, handed out from a chunk of
// its callCtx as reqCtxs are (never reused, so a kept context keeps its
// own deadline). Its Err reads the clock; only a handler that waits on
// Done pays for a timer, in makeDone (context.WithDeadline where an
// untimed call gets context.WithCancel). So a timed call allocates
// nothing more than an untimed one.

import (
	"context"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/jetrpc/jetrpc/decode"
)

// callCtx is where a state or batch slot runs its calls from.
type callCtx struct {
	parent  context.Context
	s       *state        // hands out the calls' contexts
	next    *reqCtx       // a context handed out ahead (a batch slot's, taken on the batch's goroutine)
	inBatch bool          // a batch member: its response belongs in the batch's array
	here    bool          // calls run where they arrived (a reading goroutine, a batch's): timed, unlearned when slow
	clk     *readClock    // a reading goroutine's clock (conn.Try; nil elsewhere)
	ticks   uint8         // calls of learned methods, for sampling their time (cost.go)
	drop    []byte        // where notifications' results go
	own     reqCtx        // with Options.ReuseContexts (own.reused), the one context of every call
	timed   []deadlineCtx // the rest of the chunk deadline hands out from
	unknown unknownCtx    // what an observer sees of a call of no method
}

// unknownCtx is the context an observer sees for a call of a method the
// engine does not have: no handler runs, so nothing can keep it, and it is
// reused; it carries the name asked for.
type unknownCtx struct {
	reqCtx
	name []byte
}

func (c *unknownCtx) Value(key any) any {
	if _, ok := key.(ctxKey); ok {
		return c
	}
	return c.parent.Value(key)
}

// take returns a fresh context for the next call, with parent and inBatch
// from cc: the next of the state's chunk, unless one was handed out ahead
// (takeSlow the rest). A state whose contexts are reused never has a
// chunk; a detached call's cc has no state, only next (result_detach.go).
func (cc *callCtx) take() *reqCtx {
	if s := cc.s; cc.next == nil && s.hnext < len(s.handles) {
		h := &s.handles[s.hnext]
		s.hnext++
		h.parent, h.inBatch = cc.parent, cc.inBatch
		return h
	}
	return cc.takeSlow()
}

// takeSlow is take for a context handed out ahead, a reused one, or one
// from a new chunk.
func (cc *callCtx) takeSlow() *reqCtx {
	if cc.own.reused {
		h := &cc.own // live again since its last call ended (end)
		h.parent, h.inBatch = cc.parent, cc.inBatch
		return h
	}
	h := cc.next
	if h != nil {
		cc.next = nil
	} else {
		h = cc.s.handle()
	}
	h.parent, h.inBatch = cc.parent, cc.inBatch
	return h
}

// deadlineChunk is how many deadline contexts a callCtx allocates at once:
// as many as fit in 4 KiB.
const deadlineChunk = 4096 / int(unsafe.Sizeof(deadlineCtx{}))

// deadline returns a parent for a call of cc's under timeout d, never
// handed out before.
func (cc *callCtx) deadline(parent context.Context, d time.Duration) *deadlineCtx {
	if len(cc.timed) == 0 {
		cc.timed = make([]deadlineCtx, deadlineChunk)
	}
	dc := &cc.timed[0]
	cc.timed = cc.timed[1:]
	dc.Context, dc.deadline = parent, time.Now().Add(d)
	return dc
}

// deadlineCtx is the parent of a timed call: parent with a deadline. Its
// Done is the parent's: the call's own Done (reqCtx.makeDone) is the one
// closed at the deadline.
type deadlineCtx struct {
	context.Context
	deadline time.Time
}

func (d *deadlineCtx) Deadline() (time.Time, bool) {
	if t, ok := d.Context.Deadline(); ok && t.Before(d.deadline) {
		return t, true
	}
	return d.deadline, true
}

func (d *deadlineCtx) Err() error {
	if err := d.Context.Err(); err != nil {
		return err
	}
	if !time.Now().Before(d.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

func (d *deadlineCtx) String() string { return "dispatch.deadline" }

// handleChunk is how many call contexts a state allocates at once: as
// many as fit in 4 KiB, a size class of the allocator (64 of 64 bytes).
const handleChunk = 4096 / int(unsafe.Sizeof(reqCtx{}))

// handle returns a call context never handed out before.
func (s *state) handle() *reqCtx {
	if s.hnext == len(s.handles) {
		s.handles, s.hnext = make([]reqCtx, handleChunk), 0
	}
	h := &s.handles[s.hnext]
	s.hnext++
	return h
}

// The life of a call's context.
const (
	live    = iota
	replied // Peer.Reply sent the response
	ended   // the call returned
)

// reqCtx is the context.Context of one call. It is kept small (64 bytes),
// since every call has one and the collector pays for each byte: the
// method's name comes from its table entry, and the id and _meta, which
// lie in the message, are kept as a pointer and a length each.
type reqCtx struct {
	parent  context.Context
	md      *method
	idp     *byte // the id's bytes (nil: none)
	metap   *byte // the _meta's bytes (nil: none)
	idn     uint32
	metan   uint32
	life    atomic.Uint32
	inBatch bool
	reused  bool // Options.ReuseContexts: the next call gets it again
	sampled bool // timed as the one in n of a TimingObserver (observe.go)
	compact bool // the message's params hold no whitespace between tokens (decode.Message.ParamsCompact)
	done    atomic.Pointer[lazyDone]
}

// setRequest records the request's values; h is not handed out yet.
func (c *reqCtx) setRequest(md *method, m *decode.Message) {
	c.md = md
	c.idp, c.idn = unsafe.SliceData(m.ID), uint32(len(m.ID))
	c.metap, c.metan = unsafe.SliceData(m.Meta), uint32(len(m.Meta))
	c.compact = m.ParamsCompact()
}

// paramsCompact reports whether the params h was called with under ctx are the message's
// and hold no whitespace between tokens: ctx is the call's own context and h its method's
// handler as registered (no middleware or other handler in between, which could have
// passed other params with the same context).
func paramsCompact(ctx context.Context, h Handler) bool {
	c, ok := ctx.(*reqCtx)
	return ok && c.compact && c.md != nil && c.md.h == h
}

// id, meta and method return the request's values (the bytes are the
// message's, valid during the call).
func (c *reqCtx) id() []byte   { return rawBytes(c.idp, c.idn) }
func (c *reqCtx) meta() []byte { return rawBytes(c.metap, c.metan) }
func (c *reqCtx) method() []byte {
	if c.md == nil {
		return nil
	}
	return c.md.nameBytes
}

func rawBytes(p *byte, n uint32) []byte {
	if p == nil {
		return nil
	}
	return unsafe.Slice(p, n)
}

// lazyDone is the channel of a call context's Done, made on first use.
type lazyDone struct {
	ctx    context.Context
	cancel context.CancelFunc
	w      *ResultWriter // the call's, once its handler took it (StreamResult)
}

// writer returns the ResultWriter the handler took, or nil: one load, the
// only cost of streaming to a call that does not stream.
func (c *reqCtx) writer() *ResultWriter {
	if d := c.done.Load(); d != nil {
		return d.w
	}
	return nil
}

// end marks the call over: its context is done from now on. It reports
// whether Peer.Reply answered the call already.
func (c *reqCtx) end() bool {
	if c.reused { // ready for the next call at once: never over
		was := c.life.Load()
		if was != live {
			c.life.Store(live)
		}
		if d := c.done.Load(); d != nil {
			c.done.Store(nil)
			d.cancel()
		}
		return was == replied
	}
	was := c.life.Swap(ended)
	if d := c.done.Load(); d != nil {
		d.cancel()
	}
	return was == replied
}

// over reports whether the call ended.
func (c *reqCtx) over() bool { return c.life.Load() == ended }

func (c *reqCtx) Deadline() (time.Time, bool) { return c.parent.Deadline() }

func (c *reqCtx) Done() <-chan struct{} {
	if c.over() {
		return closed
	}
	if d := c.done.Load(); d != nil {
		return d.ctx.Done()
	}
	return c.makeDone()
}

// makeDone makes the channel Done returns: a child of the parent, cancelled
// by end, and at its deadline for a timed call. Whichever of end and
// makeDone runs second cancels it.
func (c *reqCtx) makeDone() <-chan struct{} {
	var ctx context.Context
	var cancel context.CancelFunc
	if dc, ok := c.parent.(*deadlineCtx); ok {
		ctx, cancel = context.WithDeadline(dc, dc.deadline)
	} else {
		ctx, cancel = context.WithCancel(c.parent)
	}
	d := &lazyDone{ctx: ctx, cancel: cancel}
	if !c.done.CompareAndSwap(nil, d) {
		cancel()
		d = c.done.Load()
	}
	if c.over() {
		d.cancel()
	}
	return d.ctx.Done()
}

func (c *reqCtx) Err() error {
	if c.over() {
		if err := c.parent.Err(); err != nil {
			return err
		}
		return context.Canceled
	}
	if d := c.done.Load(); d != nil {
		return d.ctx.Err()
	}
	return c.parent.Err()
}

func (c *reqCtx) Value(key any) any {
	if k, ok := key.(ctxKey); ok {
		// The call itself, for every key of ours: bytesValue reads the
		// values from it (returning them would box the slices).
		if k == callKey || !c.over() {
			return c
		}
		return nil
	}
	if d := c.done.Load(); d != nil {
		// Done's own context: context.WithCancel(ctx) and the rest then
		// find a cancelCtx whose channel is Done's and register with it,
		// rather than start a goroutine to watch ctx.
		return d.ctx.Value(key)
	}
	return c.parent.Value(key)
}

func (c *reqCtx) String() string { return "dispatch.callContext" }

// closed is the channel of a context that is done.
var closed = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

type ctxKey uint8

const (
	metaKey ctxKey = iota
	idKey
	methodKey
	callKey // the *reqCtx itself (for Peer.Reply)
)

func bytesValue(ctx context.Context, k ctxKey) []byte {
	switch v := ctx.Value(k).(type) {
	case *reqCtx:
		switch k {
		case idKey:
			return v.id()
		case metaKey:
			return v.meta()
		}
		return v.method()
	case *unknownCtx:
		switch k {
		case idKey:
			return v.id()
		case metaKey:
			return v.meta()
		}
		return v.name
	case *[]byte: // Detach's
		return *v
	}
	return nil
}

// Meta returns the raw JSON of the request's "_meta" member, or nil (also
// once the call ended). The bytes are valid only during the handler call;
// copy them to keep them.
func Meta(ctx context.Context) []byte { return bytesValue(ctx, metaKey) }

// RequestID returns the raw JSON of the request's id (nil for a
// notification, and once the call ended). Valid only during the handler
// call.
func RequestID(ctx context.Context) []byte { return bytesValue(ctx, idKey) }

// MethodName returns the method being served (nil once the call ended).
// Valid only during the handler call.
func MethodName(ctx context.Context) []byte { return bytesValue(ctx, methodKey) }

// Detach returns a context for work that outlives the call ctx belongs
// to, as context.WithoutCancel does: it keeps ctx's values, with copies of
// the call's RequestID, MethodName and Meta, and it is never done, neither
// when the call ends nor when the engine shuts down, and has no deadline.
// Called after the call ended, it keeps what ctx still carries (no
// RequestID, MethodName or Meta). It allocates; ctx may be any context.
func Detach(ctx context.Context) context.Context {
	base := ctx
	if rc, ok := ctx.(*reqCtx); ok {
		base = rc.parent // not the call's own: a kept one pins its chunk
	}
	d := &detached{Context: context.WithoutCancel(base)}
	d.id = clone(RequestID(ctx))
	d.method = clone(MethodName(ctx))
	d.meta = clone(Meta(ctx))
	return d
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// detached is Detach's context.
type detached struct {
	context.Context
	id, method, meta []byte
}

func (d *detached) Value(key any) any {
	if k, ok := key.(ctxKey); ok {
		switch k {
		case metaKey:
			return &d.meta
		case idKey:
			return &d.id
		case methodKey:
			return &d.method
		case callKey:
			return nil // Peer.Reply answers only the call itself
		}
	}
	return d.Context.Value(key)
}

func (d *detached) String() string { return "dispatch.Detach" }
