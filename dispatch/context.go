package dispatch

// NOTE: the handler's context. Every call gets a context of its own, which
// stays a valid context.Context after the call: done once the call ended,
// its RequestID, MethodName and Meta nil from then on, its parent's values
// and its deadline kept. It costs no allocation and about a byte of memory.
//
// A call's context is a *ctxCell: a pointer to one byte of an arena, never
// handed out twice, so a kept context can never be taken for a later
// call. The byte holds its own index, which leads back to the arena's
// head: the parent of the arena's calls and the reqCtx that runs them. An
// arena holds 224 cells in 256 bytes (16 in 48 while the parent keeps
// changing, as a batch slot's or an HTTP request's may); a connection's
// reading goroutine has arenas of its own (conn.calls), under the
// connection's context, whichever pooled state runs its calls. A kept
// context pins only its arena and a reqCtx.
//
// The reqCtx is reused: it holds the live call's values (method, id,
// _meta, Done's channel). Which cell is live its arena says: cells are
// taken in order, one call at a time, so a cell is live from its take
// until its end moves the arena's mark (arenaHead.ended) past it, and a
// new call's values need no publishing (no one has its cell before its
// handler does). The engine writes the values only between calls. A
// goroutine that reads them through a cell (RequestID and the rest,
// StreamResult, Peer.Reply) enters first: it counts itself in readers,
// then checks that its cell is live; end moves the mark and waits until
// no reader is in before the next call's values are written. So a kept
// context reads its own call's values or nothing, and the race detector
// sees why.
//
// callCtx is the other half: the per-goroutine working state of the calls
// run by one state or batch slot (their parent context, whether they are
// batch members, the sampling tick). It is pooled and never handed out.
//
// A call under a timeout (Method.Timeout, CallTimeout) takes its cell
// from a timed arena, where each cell has a deadlineCtx beside it: the
// parent with the call's deadline (so a kept context keeps its own). Its
// Err reads the clock; only a handler that waits on Done pays for a
// timer, in makeDone (context.WithDeadline where an untimed call gets
// context.WithCancel).

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/jetrpc/jetrpc/decode"
)

// callCtx is where a state or batch slot runs its calls from.
type callCtx struct {
	parent  context.Context
	rc      *reqCtx    // its calls' values
	own     arenas     // its calls' contexts
	ar      *arenas    // a connection's, when its calls' contexts come from there (nil: own)
	inBatch bool       // a batch member: its response belongs in the batch's array
	here    bool       // calls run where they arrived (a reading goroutine, a batch's): timed, unlearned when slow
	clk     *readClock // a reading goroutine's clock (conn.Try; nil elsewhere)
	ticks   uint8      // calls of learned methods, for sampling their time (cost.go)
	rng     uint64     // xorshift state choosing the calls a TimingObserver times (never 0: seed; observe.go)
	drop    []byte     // where notifications' results go
	unknown unknownCtx // what an observer sees of a call of no method
}

// unknownCtx is the context an observer sees for a call of a method the
// engine does not have: no handler runs, so nothing can keep it, and it is
// reused; it carries the name asked for.
type unknownCtx struct {
	context.Context
	id, meta, name []byte
}

func (c *unknownCtx) Value(key any) any {
	if _, ok := key.(ctxKey); ok {
		return c
	}
	return c.Context.Value(key)
}

func (c *unknownCtx) String() string { return "dispatch.unknownMethod" }

// arenas are where a callCtx's calls take their contexts from: its own
// (callCtx.own), or a connection's for the calls its reading goroutine
// runs (callCtx.ar), whose parent stays while the pooled states that run
// them change. Each is the head of an arena and the next cell to hand out.
type arenas struct {
	plain, timed arenaUse
}

type arenaUse struct {
	head *arenaHead // nil: none yet
	next int
}

// use returns the arenas cc takes from.
func (cc *callCtx) use() *arenas {
	if cc.ar != nil {
		return cc.ar
	}
	return &cc.own
}

// take returns the context of cc's next call, under cc.parent: live from
// now until reqCtx.end, the values its handler sees written by start.
func (cc *callCtx) take() *ctxCell {
	if h := cc.next(); h != nil {
		return h
	}
	return cc.takeFrom(&cc.use().plain, false)
}

// next is take's usual case, a small leaf function (serve calls it before
// take; the inliner's budget no longer fits it since sameContext compares
// word by word): the next cell of the arena cc took from last, if it has
// one and is cc.parent's; else nil.
func (cc *callCtx) next() *ctxCell {
	u := &cc.own.plain
	if cc.ar != nil {
		u = &cc.ar.plain
	}
	a := u.head
	if a == nil || u.next >= int(a.n) || !sameContext(a.parent, cc.parent) {
		return nil
	}
	h := a.cell(u.next)
	u.next++
	return h
}

// takeTimed is take for a call under timeout d: its cell's parent is its
// own deadlineCtx, kept beside it in a timed arena.
func (cc *callCtx) takeTimed(d time.Duration) *ctxCell {
	h := cc.takeFrom(&cc.use().timed, true)
	*h.deadline() = deadlineCtx{Context: cc.parent, deadline: time.Now().Add(d)}
	return h
}

// takeFrom returns the next cell of u's arena when the arena is cc's
// parent's and has one left; else of a new arena: a big one when the last
// was used up under the same parent, a small one for a new parent.
func (cc *callCtx) takeFrom(u *arenaUse, timed bool) *ctxCell {
	a := u.head
	if a == nil || u.next == int(a.n) || !sameContext(a.parent, cc.parent) {
		a = newArena(cc.rc, cc.parent, a != nil && sameContext(a.parent, cc.parent), timed)
		u.head, u.next = a, 0
	}
	h := a.cell(u.next)
	u.next++
	return h
}

// useArenas makes a, a connection's arenas, the ones cc's calls take their
// contexts from until it is set back to nil. They pass from one pooled
// state's callCtx to another's between calls, never during one: each arena
// is handed to cc.rc here (see arenaHead.rc), so that take need not look.
func (cc *callCtx) useArenas(a *arenas) {
	cc.ar = a
	for _, h := range [2]*arenaHead{a.plain.head, a.timed.head} {
		if h != nil && h.rc.Load() != cc.rc {
			h.rc.Store(cc.rc)
		}
	}
}

// An arena's sizes: 256 and 48 bytes with the head, size classes of the
// allocator; a timed one's cells come with a deadlineCtx each (2.6 KiB
// and 384 bytes).
const (
	arenaBig   = 224
	arenaSmall = 16
	timedBig   = 64
	timedSmall = 8
)

// arenaHead is what an arena's cells lead to. Its rc is the reqCtx of the
// callCtx taking its cells: a connection's arena passes from one pooled
// state's to another's between calls (never during one), so a cell's call
// is live only if the arena's rc has it live now.
type arenaHead struct {
	rc     atomic.Pointer[reqCtx]
	parent context.Context // every call's, or the parent of every call's deadlineCtx
	n      uint8           // cells
	timed  bool            // a timed arena: each cell's parent is a deadlineCtx beside it
	ended  atomic.Int32    // cells 0 to ended-1 have ended, and the rest not (live from take)
}

type bigArena struct {
	arenaHead
	cells [arenaBig]ctxCell
}

type smallArena struct {
	arenaHead
	cells [arenaSmall]ctxCell
}

// timedBigArena and timedSmallArena are arenas of timed calls: cell i's
// parent is dl[i].
type timedBigArena struct {
	arenaHead
	cells [timedBig]ctxCell
	dl    [timedBig]deadlineCtx
}

type timedSmallArena struct {
	arenaHead
	cells [timedSmall]ctxCell
	dl    [timedSmall]deadlineCtx
}

// cellsAt is where an arena's cells start, the same in every kind.
const cellsAt = unsafe.Offsetof(bigArena{}.cells)

// The same offset in every kind: else one of these lengths is negative.
var (
	_ [cellsAt - unsafe.Offsetof(smallArena{}.cells)]struct{}
	_ [unsafe.Offsetof(smallArena{}.cells) - cellsAt]struct{}
	_ [cellsAt - unsafe.Offsetof(timedBigArena{}.cells)]struct{}
	_ [unsafe.Offsetof(timedBigArena{}.cells) - cellsAt]struct{}
	_ [cellsAt - unsafe.Offsetof(timedSmallArena{}.cells)]struct{}
	_ [unsafe.Offsetof(timedSmallArena{}.cells) - cellsAt]struct{}
)

// newArena returns a new arena of rc's under parent, each cell holding its
// index.
func newArena(rc *reqCtx, parent context.Context, big, timed bool) *arenaHead {
	var a *arenaHead
	var cells []ctxCell
	switch {
	case timed && big:
		t := &timedBigArena{}
		a, cells = &t.arenaHead, t.cells[:]
	case timed:
		t := &timedSmallArena{}
		a, cells = &t.arenaHead, t.cells[:]
	case big:
		t := &bigArena{}
		a, cells = &t.arenaHead, t.cells[:]
	default:
		t := &smallArena{}
		a, cells = &t.arenaHead, t.cells[:]
	}
	a.rc.Store(rc)
	a.parent, a.n, a.timed = parent, uint8(len(cells)), timed
	for i := range cells {
		cells[i] = ctxCell(i)
	}
	return a
}

// cell returns a's cell i.
func (a *arenaHead) cell(i int) *ctxCell {
	return (*ctxCell)(unsafe.Add(unsafe.Pointer(a), cellsAt+uintptr(i)))
}

// arenaOf returns the head of h's arena.
func arenaOf(h *ctxCell) *arenaHead {
	return (*arenaHead)(unsafe.Add(unsafe.Pointer(h), -int(*h)-int(cellsAt)))
}

// deadline returns the deadlineCtx of h, a cell of a timed arena.
func (h *ctxCell) deadline() *deadlineCtx {
	a := arenaOf(h)
	if a.n == timedBig {
		return &(*timedBigArena)(unsafe.Pointer(a)).dl[*h]
	}
	return &(*timedSmallArena)(unsafe.Pointer(a)).dl[*h]
}

// parent returns h's arena and the parent of h's call.
func (h *ctxCell) parent() (*arenaHead, context.Context) {
	a := arenaOf(h)
	if a.timed {
		return a, h.deadline()
	}
	return a, a.parent
}

// deadlineCtx is the parent of a timed call: parent with a deadline. Its
// Done is the parent's: the call's own Done (makeDone) is the one closed
// at the deadline.
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

// reqCtx holds the values of the call a callCtx runs. Only the callCtx's
// goroutine writes its plain fields, and only while no call is live
// (between end and start); others read them between enter and leave.
type reqCtx struct {
	readers atomic.Int32             // goroutines between enter and leave
	done    atomic.Pointer[lazyDone] // Done's channel, made on first use
	replied atomic.Bool              // Peer.Reply sent the response
	md      *method
	idp     *byte // the id's bytes (nil: none)
	metap   *byte // the _meta's bytes (nil: none)
	idn     uint32
	metan   uint32
	inBatch bool
	compact bool // the message's params hold no whitespace between tokens (decode.Message.ParamsCompact)
}

// start writes the values of m, a call of md, for the cell just taken:
// that cell is live already (arenaHead.ended), and no one else has it
// before the handler does. No store needs to be published.
func (rc *reqCtx) start(md *method, m *decode.Message, inBatch bool) {
	rc.md, rc.inBatch = md, inBatch
	rc.idp, rc.idn = unsafe.SliceData(m.ID), uint32(len(m.ID))
	rc.metap, rc.metan = unsafe.SliceData(m.Meta), uint32(len(m.Meta))
	rc.compact = m.ParamsCompact()
}

// end marks h's call, the live one, over: its context is done from now
// on, and rc is ready for the next call once the goroutines reading this
// one's values left. It reports whether Peer.Reply answered the call
// already.
func (rc *reqCtx) end(h *ctxCell) bool {
	if rc.ended(h) {
		return false
	}
	return rc.endSlow()
}

// ended is end's usual case, inlined: it marks h's call over (the one
// fence of a call: a reader counts itself in, then looks) and reports
// whether that was all (no reader in, Done never asked for, so no
// ResultWriter either, no Peer.Reply); if not, endSlow must follow.
func (rc *reqCtx) ended(h *ctxCell) bool {
	arenaOf(h).ended.Store(int32(*h) + 1)
	return rc.readers.Load() == 0 && rc.done.Load() == nil && !rc.replied.Load()
}

// endSlow is the rest of end when ended was not all: it waits for the
// readers, closes Done's channel and reports a reply sent.
func (rc *reqCtx) endSlow() bool {
	for rc.readers.Load() != 0 {
		runtime.Gosched() // a reader holds no lock and does not block
	}
	if d := rc.done.Load(); d != nil {
		rc.done.Store(nil)
		d.cancel()
	}
	if rc.replied.Load() {
		rc.replied.Store(false)
		return true
	}
	return false
}

// writer returns the ResultWriter the live call's handler took, or nil:
// one load, the only cost of streaming to a call that does not stream.
func (rc *reqCtx) writer() *ResultWriter {
	if d := rc.done.Load(); d != nil {
		return d.w
	}
	return nil
}

// id and meta return the live call's values (the bytes are the message's,
// valid during the call).
func (rc *reqCtx) id() []byte   { return rawBytes(rc.idp, rc.idn) }
func (rc *reqCtx) meta() []byte { return rawBytes(rc.metap, rc.metan) }

func rawBytes(p *byte, n uint32) []byte {
	if p == nil {
		return nil
	}
	return unsafe.Slice(p, n)
}

// ctxCell is the context.Context of one call (see the note at the top).
type ctxCell byte

// live reports whether h's call has not ended (a: h's arena).
func (h *ctxCell) live(a *arenaHead) bool { return a.ended.Load() <= int32(*h) }

// enter returns the call's values, held for reading until leave, or nil
// (and nothing held) once the call ended. While h is live, its arena is
// its reqCtx's: an arena passes on only between calls.
func (h *ctxCell) enter() *reqCtx {
	a := arenaOf(h)
	rc := a.rc.Load()
	rc.readers.Add(1)
	if h.live(a) {
		return rc
	}
	rc.readers.Add(-1)
	return nil
}

// leave ends what enter began.
func (rc *reqCtx) leave() { rc.readers.Add(-1) }

// paramsCompact reports whether the params h was called with under ctx are the message's
// and hold no whitespace between tokens: ctx is a live call's own context and h its method's
// handler as registered (no middleware or other handler in between, which could have
// passed other params with the same context).
func paramsCompact(ctx context.Context, h Handler) bool {
	c, ok := ctx.(*ctxCell)
	if !ok {
		return false
	}
	rc := c.enter()
	if rc == nil {
		return false
	}
	compact := rc.compact && rc.md != nil && rc.md.h == h
	rc.leave()
	return compact
}

// lazyDone is the channel of a call context's Done, made on first use.
type lazyDone struct {
	h      *ctxCell // the call's: rc.done may hold a later call's by the time a kept context looks
	ctx    context.Context
	cancel context.CancelFunc
	w      *ResultWriter // the call's, once its handler took it (StreamResult)
}

// ours returns h's lazyDone, if rc has it now.
func (h *ctxCell) ours(rc *reqCtx) *lazyDone {
	if d := rc.done.Load(); d != nil && d.h == h {
		return d
	}
	return nil
}

func (h *ctxCell) Deadline() (time.Time, bool) {
	_, parent := h.parent()
	return parent.Deadline()
}

func (h *ctxCell) Done() <-chan struct{} {
	a, parent := h.parent()
	if d := h.ours(a.rc.Load()); d != nil {
		return d.ctx.Done()
	}
	rc := h.enter()
	if rc == nil {
		return closed
	}
	d := h.makeDone(rc, parent)
	rc.leave()
	return d.ctx.Done()
}

// makeDone returns h's lazyDone, made now if no one made it yet: a child
// of the parent, cancelled by end, and at its deadline for a timed call.
// The call is live, and held (enter).
func (h *ctxCell) makeDone(rc *reqCtx, parent context.Context) *lazyDone {
	if d := rc.done.Load(); d != nil {
		return d
	}
	var ctx context.Context
	var cancel context.CancelFunc
	if dc, ok := parent.(*deadlineCtx); ok {
		ctx, cancel = context.WithDeadline(dc, dc.deadline)
	} else {
		ctx, cancel = context.WithCancel(parent)
	}
	d := &lazyDone{h: h, ctx: ctx, cancel: cancel}
	if !rc.done.CompareAndSwap(nil, d) {
		cancel()
		d = rc.done.Load()
	}
	return d
}

func (h *ctxCell) Err() error {
	a, parent := h.parent()
	if d := h.ours(a.rc.Load()); d != nil {
		return d.ctx.Err()
	}
	err := parent.Err()
	if err == nil && !h.live(a) {
		err = context.Canceled
	}
	return err
}

func (h *ctxCell) Value(key any) any {
	if _, ok := key.(ctxKey); ok {
		// The call itself, for every key of ours: bytesValue reads the
		// values from it (returning them would box the slices).
		return h
	}
	a, parent := h.parent()
	if d := h.ours(a.rc.Load()); d != nil {
		// Done's own context: context.WithCancel(ctx) and the rest then
		// find a cancelCtx whose channel is Done's and register with it,
		// rather than start a goroutine to watch ctx.
		return d.ctx.Value(key)
	}
	return parent.Value(key)
}

func (h *ctxCell) String() string { return "dispatch.callContext" }

// value returns the live call's value for k, or nil once it ended.
func (h *ctxCell) value(k ctxKey) []byte {
	rc := h.enter()
	if rc == nil {
		return nil
	}
	var b []byte
	switch k {
	case idKey:
		b = rc.id()
	case metaKey:
		b = rc.meta()
	default:
		if rc.md != nil {
			b = rc.md.nameBytes
		}
	}
	rc.leave()
	return b
}

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
	callKey // the call's *ctxCell itself (Peer.Reply, StreamResult)
)

func bytesValue(ctx context.Context, k ctxKey) []byte {
	switch v := ctx.Value(k).(type) {
	case *ctxCell:
		return v.value(k)
	case *unknownCtx:
		switch k {
		case idKey:
			return v.id
		case metaKey:
			return v.meta
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
	if h, ok := ctx.(*ctxCell); ok {
		_, base = h.parent() // not the call's own: a kept one pins its arena
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

// sameContext reports whether a and b are the same context: the same
// dynamic type and the same data word (a == b would call runtime.ifaceeq).
// Equal values of a type held by value in the interface may compare
// unequal here, which only costs take a new arena.
func sameContext(a, b context.Context) bool {
	p, q := (*[2]unsafe.Pointer)(unsafe.Pointer(&a)), (*[2]unsafe.Pointer)(unsafe.Pointer(&b))
	return p[0] == q[0] && p[1] == q[1] // not p == q: that is a call to memequal
}
