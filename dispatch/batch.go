package dispatch

import (
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
)

// processBatch answers the members of the batch just parsed into s.p (ms,
// from s.setMembers). Members whose methods may block run concurrently on
// the worker pool when there are at least two of them; everything else runs
// here, appending straight to dst: non-concurrent notifications in arrival
// order, and the calls of methods learned to be quick (cost.go), timed, so
// that once one of those runs slow the rest of them go to the workers too.
// The responses together stay within MaxBatchResponse (see Options).
func (e *Engine) processBatch(s *state, ms []member, dst []byte) []byte {
	async := 0
	for i := range ms {
		mb := &ms[i]
		if mb.async = mb.blocking(); mb.async {
			async++
		} else {
			mb.quick = mb.learnedQuick()
		}
	}
	s.asyncBytes.Store(0)
	if async == 1 { // one member that may block: it runs here, as the caller waits anyway
		for i := range ms {
			ms[i].async = false
		}
		async = 0
	}
	for i := range ms {
		if ms[i].async {
			e.runAsync(s, &ms[i])
		}
	}
	start := len(dst)
	dst = encode.AppendBatchStart(dst)
	used := 0 // bytes of the responses in the array, errTooLarge not counted
	slow := false
	for i := range ms {
		mb := &ms[i]
		switch {
		case mb.async:
			continue
		case slow && mb.quick:
			mb.async = true
			async++
			e.runAsync(s, mb)
			continue
		case mb.quick:
			t0 := time.Now()
			dst, used = e.appendMember(dst, start, mb, used)
			if time.Since(t0) > quickRun {
				slow = true
				mb.md.cost.unlearn()
			}
			continue
		}
		dst, used = e.appendMember(dst, start, mb, used)
	}
	if async > 0 {
		s.wg.Wait()
		for i := range ms {
			if ms[i].async {
				dst, used = e.appendOut(dst, start, &ms[i], used)
			}
		}
	}
	return encode.FinishBatch(dst, start) // only notifications: nothing at all
}

// runAsync runs mb on a worker, or here when the pool is saturated.
func (e *Engine) runAsync(s *state, mb *member) {
	s.wg.Add(1)
	if !e.workers.Submit(mb) {
		mb.Run()
	}
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
		e.observe(EventResponseTooLarge)
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
		e.observe(EventResponseTooLarge)
		return encode.AppendErrorValue(dst, mb.m.ID, e.errTooLarge), used
	}
	return append(dst, mb.out...), used + n
}

// blocking reports whether a member runs a handler that may wait: a call of a
// non-inline method not learned to be quick (cost.go), or a notification of
// a concurrent one.
func (mb *member) blocking() bool {
	md := mb.md
	return md != nil && !md.inline && (mb.m.Kind == decode.Call || md.concurrent) && !mb.learnedQuick()
}

// learnedQuick reports whether a member is a call of a method that may block
// but has proved quick.
func (mb *member) learnedQuick() bool {
	md := mb.md
	return md != nil && !md.inline && !md.concurrent && mb.m.Kind == decode.Call && md.cost.learned()
}
