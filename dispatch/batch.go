package dispatch

// NOTE: how a batch runs. The parser keeps the batch compact (decode:
// about 52 bytes a member) and lookupBatch records each member's method, so
// a batch's working memory grows by about 60 bytes a member, less than its
// text. Members that may block (blocking) run on the worker pool, at most
// Engine.fanOut at once: each takes a slot (a member, holding its own copy
// of the member's Message and its response buffer), and when all slots are
// taken the batch's goroutine waits for one to come back on s.done before it
// starts the next, taking that one's response meanwhile. The members that
// do not block run on the batch's goroutine, in order, straight into dst.
// First the blocking members are started, as many as there are slots (their
// indexes noted in s.started), so that they wait while the others run; then
// the members are taken in order.

import (
	"context"
	"slices"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
)

// processBatch answers the members of the batch just parsed into s.p, whose
// methods lookupBatch found. Members whose methods may block run
// concurrently on the worker pool when there are at least two of them;
// everything else runs here, appending straight to dst: non-concurrent
// notifications in arrival order, and the calls of methods learned to be
// quick (cost.go), timed (one after another from the end of the one
// before, with one clock read each; one timed so that looks slow is not
// counted, and the next is timed on its own, as on a reading goroutine:
// readClock), so that once one of those runs slow the rest of them go to
// the workers too. The responses together stay within
// MaxBatchResponse (see Options).
//
// Before the first response it makes room in dst for size (the batch's
// text) in proportion of the members due an answer: one allocation sized by
// the input rather than a dozen as the responses grow.
func (e *Engine) processBatch(ctx context.Context, s *state, dst []byte, size int) []byte {
	n := len(s.mds)
	dst = slices.Grow(dst, size/n*s.answered)
	async := s.async
	s.asyncBytes.Store(0)
	s.cc.parent, s.cc.inBatch = ctx, true
	start := len(dst)
	dst = encode.AppendBatchStart(dst)
	used := 0 // bytes of the responses in the array, errTooLarge not counted
	running := 0
	s.started = s.started[:0]
	if async > 1 { // start the members that may block, as many as there are slots
		for i := range n {
			if !blocking(s.kinds[i], s.mds[i]) {
				continue
			}
			mb := s.slot(e)
			if mb == nil {
				break
			}
			e.start(ctx, s, mb, i)
			s.started = append(s.started, i)
			running++
		}
	}
	next := 0 // s.started[next:] are still to be passed
	slow := false
	last := noTime // when the quick member just before ended (as readClock: one clock read a member)
	for i := range n {
		if next < len(s.started) && s.started[next] == i {
			next++
			continue
		}
		kind, md := s.kinds[i], s.mds[i]
		quick := learnedQuick(kind, md)
		if blocking(kind, md) && (async > 1 || slow) || slow && quick {
			mb := s.slot(e)
			if mb == nil { // fanOut running: take one back first
				mb = <-s.done
				running--
				dst, used = e.appendOut(dst, start, mb, used)
			}
			e.start(ctx, s, mb, i)
			running++
			last = noTime
			continue
		}
		s.p.BatchMember(i, &s.cur)
		if !quick {
			dst, used = e.appendMember(dst, start, &s.cc, &s.cur, md, used)
			last = noTime
			continue
		}
		t0, borrowed := last, last != noTime
		if !borrowed {
			t0 = e.now()
		}
		dst, used = e.appendMember(dst, start, &s.cc, &s.cur, md, used)
		last = e.now()
		if d := max(last-t0, 0); borrowed && d > quickRun {
			last = noTime // not counted, as on a reading goroutine (readClock): the next one is timed alone
		} else if md.cost.record(d) {
			slow = true // the rest of the batch to the workers; the method is unlearned by a second (cost.go)
		}
	}
	for ; running > 0; running-- {
		mb := <-s.done
		dst, used = e.appendOut(dst, start, mb, used)
		s.finished(mb)
	}
	s.cc.inBatch = false
	return encode.FinishBatch(dst, start) // only notifications: nothing at all
}

// appendMember processes one member straight into the batch at dst[start:],
// taking the separator back when the member produced no response. A call
// whose response does not fit in what is left of MaxBatchResponse is
// answered with errTooLarge instead.
func (e *Engine) appendMember(dst []byte, start int, cc *callCtx, m *decode.Message, md *method, used int) ([]byte, int) {
	before := len(dst)
	dst = encode.AppendBatchSep(dst, start)
	mark := len(dst)
	if dst = e.serve(cc, dst, m, md); len(dst) == mark {
		return dst[:before], used
	}
	n := len(dst) - mark
	if m.Kind == decode.Call && used+n > e.maxBatchResp {
		e.observe(EventResponseTooLarge)
		return encode.AppendErrorValue(dst[:mark], m.ID, e.errTooLarge), used
	}
	return dst, used + n
}

// appendOut adds the response of a member that ran on a worker, under the
// same rule, and leaves the slot to be reused.
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

// blocking reports whether a member of kind runs a handler that may wait: a
// call of a non-inline method not learned to be quick (cost.go), or a
// notification of a concurrent one.
func blocking(kind decode.Kind, md *method) bool {
	// A concurrent method's members all may block; of another's, a call not
	// learnedQuick.
	return md != nil && !md.inline && (md.concurrent || kind == decode.Call && !md.cost.learned())
}

// learnedQuick reports whether a member of kind is a call of a method that
// may block but has proved quick.
func learnedQuick(kind decode.Kind, md *method) bool {
	return md != nil && !md.inline && !md.concurrent && kind == decode.Call && md.cost.learned()
}
