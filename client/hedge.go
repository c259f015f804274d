package client

// NOTE: hedging (PoolOptions.HedgeAfter, HedgeQuantile). A hedged
// attempt sends the call to its endpoint (Client.send), then waits on the
// call's completion signal (pending.Call.Done) and a pooled timer; on the
// happy path the answer comes first and nothing is allocated. When the
// timer fires first, and the retry budget has a token, the call is sent to
// a second endpoint with a result buffer of its own, and the first good
// answer wins: the other call is settled (abandoned, or its completion
// waited for, so that it no longer writes to the caller's buffer) and
// cancelled with $/cancelRequest where its client has CancelNotify. A
// transport error of the first to answer waits for the other.
//
// The delay is fixed, or a quantile of recent latencies: latencies go to
// a histogram of quarter-octave buckets (atomic counters); every 1,024
// observations the quantile is computed again and the counts halved, so
// it follows the last few thousand calls.

import (
	"context"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// hedger is a pool's hedging state.
type hedger struct {
	after    time.Duration
	quantile float64
	hist     [128]atomic.Uint32
	seen     atomic.Uint32
	delay    atomic.Int64 // the quantile's delay (0: not computed yet)
	mu       sync.Mutex   // one recomputation at a time
	timers   sync.Pool    // *time.Timer
	sent     atomic.Uint64
	wins     atomic.Uint64
}

func (h *hedger) init(after time.Duration, q float64) {
	h.after = max(after, 0)
	if q > 0 && q < 1 {
		h.quantile = q
	}
}

// on reports whether the pool hedges.
func (h *hedger) on() bool { return h.after > 0 || h.quantile > 0 }

// wait returns the current hedge delay (0: do not hedge now).
func (h *hedger) wait() time.Duration {
	if h.quantile > 0 {
		if d := time.Duration(h.delay.Load()); d > 0 {
			return max(d, h.after)
		}
	}
	return h.after
}

// bucket of a latency in ns: four buckets an octave, from 1µs.
func bucket(ns int64) int {
	us := uint64(max(ns, 0)) >> 10
	if us < 4 {
		return int(us)
	}
	n := bits.Len64(us) // >= 3
	return min((n-1)*4+int(us>>(n-3))&3, 127)
}

// bucketTop is the upper bound in ns of bucket i.
func bucketTop(i int) int64 {
	if i < 4 {
		return int64(i+1) << 10
	}
	oct, quarter := i/4, i%4
	return int64(4+quarter+1) << (oct - 2) << 10
}

// observe records the latency of an answer.
func (h *hedger) observe(ns int64) {
	if h.quantile == 0 {
		return
	}
	h.hist[bucket(ns)].Add(1)
	if h.seen.Add(1)%1024 == 0 {
		h.recompute()
	}
}

// recompute sets the delay from the histogram and halves the counts.
func (h *hedger) recompute() {
	if !h.mu.TryLock() {
		return
	}
	defer h.mu.Unlock()
	var counts [128]uint32
	var total uint64
	for i := range h.hist {
		counts[i] = h.hist[i].Load()
		total += uint64(counts[i])
	}
	want := uint64(float64(total) * h.quantile)
	var sum uint64
	for i, n := range counts {
		if sum += uint64(n); sum >= want && n > 0 {
			h.delay.Store(bucketTop(i))
			break
		}
	}
	for i := range h.hist {
		h.hist[i].Store(h.hist[i].Load() / 2)
	}
}

func (h *hedger) timer(d time.Duration) *time.Timer {
	if t, ok := h.timers.Get().(*time.Timer); ok {
		t.Reset(d)
		return t
	}
	return time.NewTimer(d)
}

func (h *hedger) putTimer(t *time.Timer) {
	t.Stop()
	h.timers.Put(t)
}

// leg is one of the (up to two) attempts of a hedged call.
type leg struct {
	e     *endpoint
	q     *call
	start time.Time
	done  bool // its completion signal was taken
}

// hedged makes a hedged attempt starting on e.
func (p *Pool) hedged(ctx context.Context, e *endpoint, tried *uint64, dst []byte, method string, raw []byte, params any, keep bool) ([]byte, error) {
	if !e.c.t.stream() && ctx.Done() == nil {
		// An HTTP POST under a context that cannot end runs in the
		// caller: give it one, so the hedge can go meanwhile.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
	}
	var a, b leg
	if err := p.start(ctx, &a, e, dst, method, raw, params, keep); err != nil {
		return dst, err
	}
	delay := p.hedge.wait()
	if delay <= 0 {
		return p.finish(ctx, &a)
	}
	t := p.hedge.timer(delay)
	select {
	case <-a.q.Done():
		a.done = true
		p.hedge.putTimer(t)
		return p.finish(ctx, &a)
	case <-ctx.Done():
		p.hedge.putTimer(t)
		return p.finish(ctx, &a)
	case <-t.C:
		p.hedge.putTimer(t)
	}
	// The hedge: another endpoint, if there is one and the budget allows.
	e2 := p.pick(*tried)
	if e2 == e || p.retry != nil && !p.retry.budget.take() {
		return p.finish(ctx, &a)
	}
	*tried |= p.bit(e2)
	q2buf := e2.c.getCall() // b's own result buffer
	if err := p.start(ctx, &b, e2, q2buf.buf[:0], method, raw, params, keep); err != nil {
		putCall(q2buf)
		return p.finish(ctx, &a)
	}
	p.hedge.sent.Add(1)
	defer putCall(q2buf)
	for {
		select {
		case <-a.q.Done():
			a.done = true
		case <-b.q.Done():
			b.done = true
		case <-ctx.Done():
			p.drop(&b)
			return p.finish(ctx, &a)
		}
		good := func(l *leg) bool { return l.done && (l.q.Err == nil || !transportErr(l.q.Err)) }
		switch {
		case good(&a) || a.done && b.done:
			p.drop(&b)
			return p.finish(ctx, &a)
		case good(&b):
			p.drop(&a) // a no longer writes to dst
			p.hedge.wins.Add(1)
			res, err := p.finish(ctx, &b)
			if err == nil || res != nil { // a result, or a kept error object
				res = append(dst, res...)
			}
			return res, err
		}
	}
}

// start sends the call on e for leg l, its result appended to dst.
func (p *Pool) start(ctx context.Context, l *leg, e *endpoint, dst []byte, method string, raw []byte, params any, keep bool) error {
	c := e.c
	l.e, l.q, l.start = e, c.getCall(), time.Now()
	l.q.Dst, l.q.KeepError = dst, keep
	e.pending.Add(1)
	if err := c.send(ctx, l.q, method, raw, params); err != nil {
		e.pending.Add(-1)
		putCall(l.q)
		p.record(e, l.start, err)
		return err
	}
	return nil
}

// finish waits for leg l (unless its answer came) and returns it.
func (p *Pool) finish(ctx context.Context, l *leg) ([]byte, error) {
	var err error
	if !l.done {
		err = l.e.c.wait(ctx, l.q)
	}
	if err == nil {
		err = l.q.Err
	}
	res := l.q.Res
	putCall(l.q)
	l.e.pending.Add(-1)
	p.record(l.e, l.start, err)
	return res, err
}

// drop abandons leg l, the loser: it is settled (so it writes nothing
// more) and the server told, where its client has CancelNotify.
func (p *Pool) drop(l *leg) {
	c := l.e.c
	if !l.done {
		if c.calls.Abandon(l.q.id, &l.q.Call) {
			c.sendCancel(l.q.idBytes())
		} else {
			<-l.q.Done()
		}
	}
	putCall(l.q)
	l.e.pending.Add(-1)
	l.e.slower(time.Since(l.start)) // it took at least this long
}
