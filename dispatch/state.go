package dispatch

import (
	"context"
	"sync"

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
}

// member is one batch member's work: it runs on a worker or inline.
type member struct {
	e     *Engine
	s     *state
	m     *decode.Message
	cc    callCtx
	out   []byte
	async bool
}

// Run processes the member into its own buffer (on a worker goroutine).
func (mb *member) Run() {
	mb.out = mb.e.processOne(&mb.cc, mb.out[:0], mb.m)
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
	s.cc.Context = nil
	for i := range s.members {
		mb := &s.members[i]
		mb.m, mb.cc.Context = nil, nil
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
		ms[i].cc.Context = ctx
		ms[i].out = ms[i].out[:0]
		ms[i].async = false
	}
	return ms
}
