package dispatch

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
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
	dst = append(dst, '[')
	n := 0
	for i := range ms {
		if async >= 2 && ms[i].async {
			continue
		}
		dst, n = e.appendMember(dst, &ms[i], n)
	}
	if async >= 2 {
		s.wg.Wait()
		for i := range ms {
			if ms[i].async {
				dst, n = joinMember(dst, ms[i].out, n)
			}
		}
	}
	if n == 0 {
		return dst[:start] // only notifications: nothing at all
	}
	return append(dst, ']')
}

// appendMember processes one member straight into dst, adding the separator
// only when the member produced a response.
func (e *Engine) appendMember(dst []byte, mb *member, n int) ([]byte, int) {
	before := len(dst)
	if n > 0 {
		dst = append(dst, ',')
	}
	mark := len(dst)
	dst = e.processOne(&mb.cc, dst, mb.m)
	if len(dst) == mark {
		return dst[:before], n
	}
	return dst, n + 1
}

func joinMember(dst, out []byte, n int) ([]byte, int) {
	if len(out) == 0 {
		return dst, n
	}
	if n > 0 {
		dst = append(dst, ',')
	}
	return append(dst, out...), n + 1
}

// blocking reports whether a member runs a handler that may wait: a call of a
// non-inline method, or a notification of a concurrent one.
func (e *Engine) blocking(m *decode.Message) bool {
	if m.Kind != decode.Call && m.Kind != decode.Notification {
		return false
	}
	md := e.table[bytesconv.B2S(m.Method)]
	if md == nil || md.inline {
		return false
	}
	return m.Kind == decode.Call || md.concurrent
}
