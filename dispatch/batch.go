package dispatch

import (
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
)

// processBatch answers the members of the batch just parsed into s.p (ms,
// from s.setMembers). Members
// whose methods may block run concurrently on the worker pool when there are
// at least two of them; everything else runs here, appending straight to dst.
// Non-concurrent notifications run here too, in arrival order. The responses
// together stay within MaxBatchResponse (see Options).
func (e *Engine) processBatch(s *state, ms []member, dst []byte) []byte {
	async := 0
	for i := range ms {
		if ms[i].blocking() {
			ms[i].async = true
			async++
		}
	}
	if async >= 2 {
		s.asyncBytes.Store(0)
		s.wg.Add(async)
		for i := range ms {
			if ms[i].async && !e.workers.Submit(&ms[i]) {
				ms[i].Run() // pool saturated: run it here
			}
		}
	}
	start := len(dst)
	dst = encode.AppendBatchStart(dst)
	used := 0 // bytes of the responses in the array, errTooLarge not counted
	for i := range ms {
		if async < 2 || !ms[i].async {
			dst, used = e.appendMember(dst, start, &ms[i], used)
		}
	}
	if async >= 2 {
		s.wg.Wait()
		for i := range ms {
			if ms[i].async {
				dst, used = e.appendOut(dst, start, &ms[i], used)
			}
		}
	}
	return encode.FinishBatch(dst, start) // only notifications: nothing at all
}

// appendMember processes one member straight into the batch at dst[start:],
// taking the separator back when the member produced no response. A call
// whose response does not fit in what is left of MaxBatchResponse is
// answered with errTooLarge instead.
func (e *Engine) appendMember(dst []byte, start int, mb *member, used int) ([]byte, int) {
	before := len(dst)
	dst = encode.AppendBatchSep(dst, start)
	mark := len(dst)
	if dst = e.processOne(&mb.cc, dst, mb.m, mb.md); len(dst) == mark {
		return dst[:before], used
	}
	n := len(dst) - mark
	if mb.m.Kind == decode.Call && used+n > e.maxBatchResp {
		return encode.AppendErrorValue(dst[:mark], mb.m.ID, e.errTooLarge), used
	}
	return dst, used + n
}

// appendOut adds the response of a member that ran on a worker, under the
// same rule.
func (e *Engine) appendOut(dst []byte, start int, mb *member, used int) ([]byte, int) {
	n := len(mb.out)
	if n == 0 && !mb.cut {
		return dst, used
	}
	dst = encode.AppendBatchSep(dst, start)
	if mb.cut || mb.m.Kind == decode.Call && used+n > e.maxBatchResp {
		return encode.AppendErrorValue(dst, mb.m.ID, e.errTooLarge), used
	}
	return append(dst, mb.out...), used + n
}

// blocking reports whether a member runs a handler that may wait: a call of a
// non-inline method, or a notification of a concurrent one.
func (mb *member) blocking() bool {
	md := mb.md
	return md != nil && !md.inline && (mb.m.Kind == decode.Call || md.concurrent)
}
