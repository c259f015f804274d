package dispatch

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/jetrpc/jetrpc/decode"
)

// maxKeptBuffer caps the buffers a pooled state keeps between messages.
const maxKeptBuffer = 64 << 10

// state is the pooled per-Process working set: the parser, the context of a
// single call, and the batch members' work items.
type state struct {
	p       decode.Parser
	cc      callCtx
	members []member
	wg      sync.WaitGroup
	scratch []byte

	asyncBytes atomic.Int64 // response bytes of the batch members run on workers

	emit func([]byte) // ProcessStream: where each member's response goes
}

// member is one batch member's work: it runs on a worker or inline.
type member struct {
	e     *Engine
	s     *state
	m     *decode.Message
	md    *method // m's method, looked up once
	cc    callCtx
	out   []byte
	async bool
	quick bool // a call of a method learned to be quick, run inline (cost.go)
	cut   bool // the response did not fit in MaxBatchResponse
}

// Run processes the member into its own buffer (on a worker goroutine). The
// responses kept by the members run on workers stay within MaxBatchResponse
// too: a call whose response would take them over keeps none (cut), so that
// their buffers together stay bounded while the batch runs.
func (mb *member) Run() {
	e := mb.e
	mb.out = e.processOne(&mb.cc, mb.out[:0], mb.m, mb.md)
	if emit := mb.s.emit; emit != nil {
		if len(mb.out) > 0 {
			mb.s.asyncBytes.Add(int64(len(mb.out)))
			emit(mb.out)
		}
		mb.s.wg.Done()
		return
	}
	if n := int64(len(mb.out)); n > 0 && mb.m.Kind == decode.Call &&
		mb.s.asyncBytes.Add(n) > int64(e.maxBatchResp) {
		mb.s.asyncBytes.Add(-n)
		mb.cut, mb.out = true, mb.out[:0]
		if cap(mb.out) > maxKeptBuffer {
			mb.out = nil
		}
	}
	mb.s.wg.Done()
}

func (e *Engine) newState() *state {
	s := &state{}
	s.p.MaxBatch = e.maxBatch
	s.p.MaxDepth = e.maxDepth
	return s
}

func (e *Engine) getState() *state { return e.states.Get().(*state) }

func (e *Engine) putState(s *state) {
	s.cc.Context, s.emit = nil, nil
	for i := range s.members {
		mb := &s.members[i]
		mb.m, mb.md, mb.cc.Context = nil, nil, nil
		if cap(mb.out) > maxKeptBuffer {
			mb.out = nil
		}
	}
	if cap(s.scratch) > maxKeptBuffer {
		s.scratch = nil
	}
	e.states.Put(s)
}

// setMembers sizes s.members for n batch members, keeping their buffers.
func (s *state) setMembers(e *Engine, ctx context.Context, msgs []decode.Message) []member {
	for len(s.members) < len(msgs) {
		s.members = append(s.members, member{e: e, s: s})
	}
	ms := s.members[:len(msgs)]
	for i := range ms {
		ms[i].m = &msgs[i]
		ms[i].md = e.lookup(&msgs[i])
		ms[i].cc.Context = ctx
		ms[i].cc.inBatch = true
		ms[i].out = ms[i].out[:0]
		ms[i].async, ms[i].quick, ms[i].cut = false, false, false
	}
	return ms
}
