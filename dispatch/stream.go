package dispatch

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/internal/pool"
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
	e.processStream(ctx, nil, msg, emit)
}

// processStream is ProcessStream under the policy p (nil: the default).
func (e *Engine) processStream(ctx context.Context, p *policy, msg []byte, emit func(resp []byte)) {
	if !e.frozen.Load() {
		e.Freeze()
	}
	s := e.getState()
	s.pol = p
	m, err := s.p.Parse(msg)
	out, batch := 0, 0
	if err == nil && e.forwards(m) {
		b := pool.GetBuffer()
		b.B = e.forward(ctx, p, s, b.B, m)
		out = len(b.B)
		emitNonEmpty(emit, b.B)
		pool.PutBuffer(b)
	} else if err == nil && m.Kind == decode.Batch {
		batch = s.p.BatchLen()
		e.lookupBatch(s)
		b := pool.GetBuffer()
		if e.charged(p, s, m, nil, &b.B) {
			out = e.streamBatch(ctx, s, emit)
		} else {
			out = len(b.B)
			emitNonEmpty(emit, b.B)
		}
		pool.PutBuffer(b)
	} else {
		b := pool.GetBuffer()
		if err != nil {
			b.B = e.appendParseError(s, b.B, err)
		} else if md := e.lookup(s, m); e.charged(p, s, m, md, &b.B) {
			b.B = e.serveIn(ctx, s, b.B, m, md)
		}
		out = len(b.B)
		emitNonEmpty(emit, b.B)
		pool.PutBuffer(b)
	}
	e.putState(s)
	e.observeMessage(len(msg), out, batch)
}

// streamBatch emits the responses of the members of the batch parsed into
// s.p: the ones that may block run on workers (at most Engine.fanOut at
// once, as in processBatch), the rest here, in order. It returns the bytes
// emitted.
func (e *Engine) streamBatch(ctx context.Context, s *state, emit func([]byte)) int {
	s.emit = emit
	s.asyncBytes.Store(0) // the bytes the members on workers emit
	s.cc.parent, s.cc.inBatch = ctx, true
	b := pool.GetBuffer()
	running := 0
	for i, md := range s.mds {
		if blocking(s.kinds[i], md) {
			mb := s.slot(e)
			if mb == nil { // fanOut running: wait for one
				mb = <-s.done
				running--
			}
			e.start(ctx, s, mb, i)
			running++
			continue
		}
		s.p.BatchMember(i, &s.cur)
		b.B = e.serve(&s.cc, b.B[:0], &s.cur, md)
		s.asyncBytes.Add(int64(len(b.B)))
		emitNonEmpty(emit, b.B)
	}
	for ; running > 0; running-- {
		s.finished(<-s.done)
	}
	pool.PutBuffer(b)
	s.cc.inBatch = false
	return int(s.asyncBytes.Load())
}

func emitNonEmpty(emit func([]byte), resp []byte) {
	if len(resp) > 0 {
		emit(resp)
	}
}
