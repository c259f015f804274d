package dispatch

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
)

// processBatch answers the members of the batch just parsed into s.p. Members
// whose methods may block run concurrently on the worker pool when there are
// at least two of them; everything else runs here, appending straight to dst.
// Non-concurrent notifications run here too, in arrival order.
func (e *Engine) processBatch(ctx context.Context, s *state, dst []byte) []byte {
	ms := s.setMembers(e, ctx, s.p.Batch())
	async := 0
	for i := range ms {
		if e.blocking(ms[i].m) {
			ms[i].async = true
			async++
		}
	}
	if async >= 2 {
		s.wg.Add(async)
		for i := range ms {
			if ms[i].async && !e.workers.Submit(&ms[i]) {
				ms[i].Run() // pool saturated: run it here
			}
		}
	}
	start := len(dst)
	dst = encode.AppendBatchStart(dst)
	for i := range ms {
		if async < 2 || !ms[i].async {
			dst = e.appendMember(dst, start, &ms[i])
		}
	}
	if async >= 2 {
		s.wg.Wait()
		for i := range ms {
			if ms[i].async {
				dst = encode.AppendBatchMember(dst, start, ms[i].out)
			}
		}
	}
	return encode.FinishBatch(dst, start) // only notifications: nothing at all
}

// appendMember processes one member straight into the batch at dst[start:],
// taking the separator back when the member produced no response.
func (e *Engine) appendMember(dst []byte, start int, mb *member) []byte {
	before := len(dst)
	dst = encode.AppendBatchSep(dst, start)
	mark := len(dst)
	if dst = e.processOne(&mb.cc, dst, mb.m); len(dst) == mark {
		return dst[:before]
	}
	return dst
}

// blocking reports whether a member runs a handler that may wait: a call of a
// non-inline method, or a notification of a concurrent one.
func (e *Engine) blocking(m *decode.Message) bool {
	if m.Kind != decode.Call && m.Kind != decode.Notification {
		return false
	}
	md := e.table.lookup(m.Method)
	if md == nil || md.inline {
		return false
	}
	return m.Kind == decode.Call || md.concurrent
}
