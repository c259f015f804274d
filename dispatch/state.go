package dispatch

import (
	"context"
	"sync/atomic"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/internal/engineconn"
	"github.com/jetrpc/jetrpc/internal/pool"
)

const (
	// maxKeptBuffer caps the buffers a pooled state keeps between messages.
	maxKeptBuffer = 64 << 10
	// slotOut is the first capacity of a batch slot's response buffer;
	// maxKeptOut caps what it keeps between members.
	slotOut    = 128
	maxKeptOut = 4 << 10
	// maxKeptMethods caps the batch method table a pooled state keeps (a
	// batch at the default MaxBatch fits).
	maxKeptMethods = 1024
)

// state is the pooled per-Process working set: the parser, the context of a
// single call (and of the batch members run on the caller's goroutine), and
// the batch's slots for the members run on workers.
type state struct {
	cc      callCtx
	p       decode.Parser
	scratch []byte
	routed  routed  // the message parsed here and routed to run elsewhere (route.go)
	pol     *policy // the message's policy (policy.go; nil: the default)

	asyncBytes atomic.Int64 // response bytes of the batch members run on workers

	emit func([]byte) // ProcessStream: where each member's response goes

	// A batch's.
	cur      decode.Message // the member run on the caller's goroutine
	mds      []*method      // each member's method (nil: none), looked up once
	kinds    []decode.Kind  // and its Kind
	started  []int          // the members started before the others ran (batch.go)
	answered int            // the members due an answer (calls, invalid members)
	async    int            // the members that may block (blocking)
	free     []*member      // slots not in use
	slots    int            // slots made: at most Engine.fanOut
	done     chan *member   // slots whose member ran (buffered: Engine.fanOut)
}

// member is a batch slot: one member's work on a worker. A batch has at most
// Engine.fanOut of them running; each holds its own copy of the member's
// Message, as the state's parser only keeps the batch compact.
type member struct {
	e   *Engine
	s   *state
	m   decode.Message
	md  *method // m's method
	cc  callCtx
	out []byte
	cut bool // the response did not fit in MaxBatchResponse
}

// Run processes the member into its own buffer (on a worker goroutine);
// Done then hands the slot back through s.done (pool.Handoff), once the
// worker is idle again, so that the batch's next member, which waited for
// this slot, finds it. The responses kept by the members run on workers
// stay within MaxBatchResponse too: a call whose response would take them
// over keeps none (cut), so that their buffers together stay bounded.
func (mb *member) Run() {
	e, s := mb.e, mb.s
	mb.out = e.serve(&mb.cc, mb.out[:0], &mb.m, mb.md)
	if emit := s.emit; emit != nil {
		if len(mb.out) > 0 {
			s.asyncBytes.Add(int64(len(mb.out)))
			emit(mb.out)
		}
	} else if n := int64(len(mb.out)); n > 0 && mb.m.Kind == decode.Call &&
		s.asyncBytes.Add(n) > int64(e.maxBatchResp) {
		s.asyncBytes.Add(-n)
		mb.cut, mb.out = true, mb.out[:0]
		if cap(mb.out) > maxKeptOut {
			mb.out = nil
		}
	}
}

// Done gives the slot back; nothing may touch it afterwards.
func (mb *member) Done() { mb.s.done <- mb }

var _ pool.Handoff = (*member)(nil)

func (e *Engine) newState() *state {
	s := &state{cc: callCtx{rc: new(reqCtx), rng: seed()}}
	s.p.MaxBatch = e.maxBatch
	s.p.MaxDepth = e.maxDepth
	return s
}

func (e *Engine) getState() *state { return e.states.Get().(*state) }

func (e *Engine) putState(s *state) {
	s.reset()
	e.states.Put(s)
}

// reset readies s for its next message: it keeps nothing of the last one
// but bounded buffers.
func (s *state) reset() {
	s.cc.parent, s.emit, s.pol = nil, nil, nil
	if s.p.BatchLen() > maxKeptMethods || cap(s.scratch) > maxKeptBuffer {
		s.shrink()
	}
}

// shrink lets go of what reset finds too large to keep.
func (s *state) shrink() {
	if s.p.BatchLen() > maxKeptMethods { // let go of a large batch's input and tables
		s.cur = decode.Message{}
		s.p.Reset()
		s.mds, s.kinds, s.started = nil, nil, nil
	}
	if cap(s.scratch) > maxKeptBuffer {
		s.scratch = nil
	}
}

// takeState returns the state *held (a connection's, kept since its
// previous message: conn.Rest) or, when it holds none, a pooled one.
func (e *Engine) takeState(held **state) *state {
	if s := *held; s != nil {
		*held = nil
		return s
	}
	return e.getState()
}

// holdState keeps s, done with its message, in *held for the connection's
// next one: a burst of messages on one reading goroutine takes the pool
// once, not once a message (conn.Rest gives it back).
func holdState(s *state, held **state) {
	s.reset()
	*held = s
}

// lookupBatch looks up the method of each member of the batch just parsed
// into s.mds and returns where the batch should run (see batchRoute).
func (e *Engine) lookupBatch(s *state) engineconn.Route {
	n := s.p.BatchLen()
	if cap(s.mds) < n {
		s.mds, s.kinds = make([]*method, n), make([]decode.Kind, n)
	}
	s.mds, s.kinds = s.mds[:n], s.kinds[:n]
	route := engineconn.RouteInline
	s.answered, s.async = 0, 0
	for i := range s.mds {
		kind, name := s.p.BatchMethod(i)
		var md *method
		switch kind {
		case decode.Call:
			s.answered++
			fallthrough
		case decode.Notification:
			md = e.table.lookup(name)
			if md != nil && !s.pol.serves(md) {
				md = nil
			}
			if blocking(kind, md) {
				s.async++
			}
		case decode.Invalid:
			s.answered++
		}
		s.mds[i], s.kinds[i] = md, kind
		switch routeOf(kind, md) {
		case engineconn.RouteWorker:
			if route == engineconn.RouteInline {
				route = engineconn.RouteWorker
			}
		case engineconn.RouteOrdered:
			route = engineconn.RouteOrdered
		}
	}
	return route
}

// slot returns a batch slot not in use, or nil when Engine.fanOut members
// are running (wait for one on s.done).
func (s *state) slot(e *Engine) *member {
	if n := len(s.free) - 1; n >= 0 {
		mb := s.free[n]
		s.free[n] = nil
		s.free = s.free[:n]
		return mb
	}
	if s.slots == e.fanOut {
		return nil
	}
	if s.done == nil {
		s.done = make(chan *member, e.fanOut)
	}
	s.slots++
	mb := &member{e: e, s: s, out: make([]byte, 0, slotOut), cc: callCtx{rc: new(reqCtx), rng: seed()}}
	return mb
}

// start readies slot mb for member i of the batch, under ctx, and runs it on
// a worker, or here when the pool is saturated.
func (e *Engine) start(ctx context.Context, s *state, mb *member, i int) {
	s.p.BatchMember(i, &mb.m)
	mb.md = s.mds[i]
	mb.cc.parent, mb.cc.inBatch = ctx, true
	mb.out, mb.cut = mb.out[:0], false
	if !e.workers.Submit(mb) {
		mb.Run()
		mb.Done()
	}
}

// finished puts back a slot whose member ran and whose response was taken.
func (s *state) finished(mb *member) {
	mb.m, mb.md, mb.cc.parent = decode.Message{}, nil, nil
	if cap(mb.out) > maxKeptOut {
		mb.out = nil
	}
	s.free = append(s.free, mb)
}
