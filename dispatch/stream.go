package dispatch

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/pool"
)

// ProcessStream is ProcessContext for transports that stream responses
// (Server-Sent Events): instead of appending one response it calls emit
// with each response as soon as it is ready, the single message's or each
// batch member's (never a batch array); a message that needs no answer
// emits nothing. Batch members that may block run on the workers, the
// others at once on this goroutine, so emit may be called from several
// goroutines at the same time; resp is valid only during the call.
// ProcessStream returns when every response was emitted. MaxBatchResponse
// does not apply: the responses are not held together.
func (e *Engine) ProcessStream(ctx context.Context, msg []byte, emit func(resp []byte)) {
	if !e.frozen.Load() {
		e.Freeze()
	}
	s := e.getState()
	m, err := s.p.Parse(msg)
	out, batch := 0, 0
	if err == nil && m.Kind == decode.Batch {
		batch = len(s.p.Batch())
		out = e.streamBatch(ctx, s, emit)
	} else {
		b := pool.GetBuffer()
		b.B = e.processSingle(ctx, s, b.B, m, err)
		out = len(b.B)
		emitNonEmpty(emit, b.B)
		pool.PutBuffer(b)
	}
	e.putState(s)
	e.observeMessage(len(msg), out, batch)
}

// streamBatch emits the responses of the members of the batch parsed into
// s.p: the ones that may block run on workers, the rest here, in order. It
// returns the bytes emitted.
func (e *Engine) streamBatch(ctx context.Context, s *state, emit func([]byte)) int {
	ms := s.setMembers(e, ctx, s.p.Batch())
	s.emit = emit
	s.asyncBytes.Store(0) // the bytes the members on workers emit
	for i := range ms {
		if ms[i].async = ms[i].blocking(); ms[i].async {
			s.wg.Add(1)
			if !e.workers.Submit(&ms[i]) {
				ms[i].Run() // pool saturated: run it here
			}
		}
	}
	for i := range ms {
		if mb := &ms[i]; !mb.async {
			mb.out = e.processOne(&mb.cc, mb.out[:0], mb.m, mb.md)
			s.asyncBytes.Add(int64(len(mb.out)))
			emitNonEmpty(emit, mb.out)
		}
	}
	s.wg.Wait()
	return int(s.asyncBytes.Load())
}

func emitNonEmpty(emit func([]byte), resp []byte) {
	if len(resp) > 0 {
		emit(resp)
	}
}
