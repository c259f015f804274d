package client

// NOTE: a call forwarded without a goroutine waiting for it (a gateway's
// call). Start sends it, as ForwardRaw's first attempt, and returns; the
// pending entry carries the Forward as its Completer (pending.Call.Then),
// so the endpoint's reader, having appended the result to the caller's
// buffer, runs Completed, which hands the answer to the Completion on that
// same goroutine. Nothing is handed off and nothing allocated on that path.
//
// Who ends a Forward: whoever removes its entry from the client's pending
// table (pending's rule): the reader (an answer), Close (a lost
// connection), or stop, for a timeout (the Forward's own pooled timer) or
// a Cancel. Any of them ends in Completed, once. A failure the pool would
// retry (an idempotent method, a retryable error) goes on on a goroutine
// of its own (retry), which waits and attempts as ForwardRaw does, under
// the same deadline. A Forward is pooled; its generation (gen) changes
// with each use, so that a late Cancel, or a timer that fired as the call
// ended, cannot touch the next call.

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/pending"
)

// Completion receives the answer of a call forwarded with Forward.Start.
type Completion interface {
	// ForwardDone is called once, with what ForwardRaw would return: res
	// is the Start's dst with the result appended (err nil); after an
	// error response, dst with its error object appended as it came (err
	// is its *encode.Error); after any other failure, dst. It runs on the
	// goroutine that ended the call (the endpoint's reader, a timer's,
	// Cancel's caller, a retry's, or Start's caller when the call could
	// not be sent) and must not block. The Forward is no longer the
	// caller's then. On an endpoint's reader, later is not nil: work
	// deferred to it runs once the reader has delivered all it read (the
	// write of an answer, which then carries the others that read made
	// ready).
	ForwardDone(res []byte, err error, later *Later)
}

// Later is work that the Completions of forwards leave to the endpoint's
// reader that delivered their answers: it runs once the reader has
// delivered every message it has read, before it waits for more. So the
// answers that one read makes ready are written with one write per
// client connection, where each would otherwise write its own.
type Later struct {
	fs []interface{ Flush() }
}

// Defer has f.Flush called later, once however often it is deferred.
func (l *Later) Defer(f interface{ Flush() }) {
	for _, x := range l.fs {
		if x == f {
			return
		}
	}
	l.fs = append(l.fs, f)
}

// run runs and forgets what was deferred.
func (l *Later) run() {
	for i, f := range l.fs {
		f.Flush()
		l.fs[i] = nil
	}
	l.fs = l.fs[:0]
}

// Forward is a call forwarded without waiting (Pool.NewForward). It is
// pooled: after its Completion ran, only Cancel (with a stale token, which
// does nothing) may still be called.
type Forward struct {
	p    *Pool
	done Completion

	method   string
	params   []byte
	dst      []byte
	idem     bool
	tried    uint64
	n        int           // the attempt in flight (1: the first)
	start    time.Duration // of the attempt, on the monotonic clock (mono)
	deadline time.Duration // on the monotonic clock; 0: none

	mu       sync.Mutex
	gen      uint64 // the use; changes when it ends
	armed    uint64 // the use the timer was set for
	e        *endpoint
	q        *call
	stopErr  error              // a Cancel or the timeout, for a retry under way
	retryEnd context.CancelFunc // ends the retry under way (nil: none)
	later    *Later             // the reader's that completes the attempt (nil: another goroutine)
	byTimer  bool               // the timer ends this use
	timer    *time.Timer        // made once, reset for each use with a timeout
}

// monoBase is the origin of the monotonic times of forwards.
var monoBase = time.Now()

// mono reads the monotonic clock (no wall clock read).
func mono() time.Duration { return time.Since(monoBase) }

// NewForward returns a call of method whose answer goes to done, ready to
// Start, or nil when the pool cannot forward it without a goroutine
// waiting for the answer: an endpoint is reached over HTTP, or the call
// would be hedged (an idempotent method in a pool with HedgeAfter or
// HedgeQuantile); use ForwardRaw then. method must stay valid until done
// runs.
func (p *Pool) NewForward(method string, done Completion) *Forward {
	if !p.async {
		return nil
	}
	idem := p.retry.idempotent(method)
	if idem && p.hedge.on() && len(p.eps) > 1 {
		return nil
	}
	f, _ := p.forwards.Get().(*Forward)
	if f == nil {
		f = &Forward{p: p}
	}
	f.done, f.method, f.idem = done, method, idem
	return f
}

// Token identifies this use of f for Cancel.
func (f *Forward) Token() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gen
}

// Start forwards the call with raw params (which must stay valid until
// the Completion runs) as ForwardRaw does, the result to be appended to
// dst; timeout bounds it, retries and their waits included (0: no bound).
// It returns once the request is queued to an endpoint; the Completion
// may have run by then.
func (f *Forward) Start(dst []byte, params []byte, timeout time.Duration) {
	p := f.p
	f.dst, f.params = dst, params
	if err := checkParams(params); err != nil {
		f.end(dst, err, nil)
		return
	}
	p.calls.Add(1)
	if p.retry != nil {
		p.retry.budget.depositCall()
	}
	f.deadline = 0
	if timeout > 0 {
		f.deadline = mono() + timeout
		f.arm(timeout)
	}
	f.n = 1
	f.send()
}

// arm sets f's timer for this use.
func (f *Forward) arm(d time.Duration) {
	f.mu.Lock()
	f.armed = f.gen
	if f.timer == nil {
		f.timer = time.AfterFunc(d, f.expire)
	} else {
		f.timer.Reset(d)
	}
	f.mu.Unlock()
}

// send makes attempt f.n on an endpoint the pool picks.
func (f *Forward) send() {
	p := f.p
	e := p.pick(f.tried)
	f.tried |= p.bit(e)
	c := e.c
	q := c.getCall()
	q.Dst, q.KeepError, q.Then = f.dst, true, f
	e.pending.Add(1)
	f.mu.Lock()
	f.e, f.q = e, q
	f.mu.Unlock()
	f.start = mono()
	if err := c.sendAsync(q, f.method, f.params); err != nil {
		q.Err = err
		f.Completed(&q.Call) // not pending: this goroutine ends the attempt
	}
	// Otherwise Completed runs (or ran) where the call ends: f is no
	// longer this goroutine's.
}

// sendAsync registers the call p and sends it, as send does, for a call
// nobody waits for (its Then is set). When it returns nil, p's Then is
// told of its end, maybe already; otherwise p is not pending.
func (c *Client) sendAsync(p *call, method string, raw []byte) error {
	ctx := context.Background()
	m, err := c.t.begin(ctx)
	if err != nil {
		return err
	}
	if err := c.register(p); err != nil {
		c.t.abort(m)
		return err
	}
	m.b = encode.AppendRequest(m.b, p.idBytes(), method, raw)
	m.b = c.traceMessage(ctx, m.b)
	if err := c.t.send(ctx, m, p.ids[:]); err != nil && c.calls.Abandon(p.id, &p.Call) {
		return err
	}
	// Sent, or failed with the client (which completed p, or will).
	return nil
}

// Completed ends attempt f.n (pending.Completer): on the endpoint's reader
// for an answer, elsewhere for a failure.
func (f *Forward) Completed(pc *pending.Call) {
	p := f.p
	f.mu.Lock()
	e, q := f.e, f.q
	f.e, f.q = nil, nil
	f.mu.Unlock()
	later := f.later
	f.later = nil
	res, err := q.Res, q.Err
	q.Then = nil
	putCall(q)
	e.pending.Add(-1)
	if d, ok := p.healthOf(e, int64(mono()-f.start), err); ok {
		p.hedge.observe(d)
	}
	if err == nil {
		f.end(res, nil, later)
		return
	}
	if f.retries(err) {
		go f.retry(err, res)
		return
	}
	p.failed.Add(1)
	f.end(kept(f.dst, res), err, later)
}

// retries reports whether the pool's again would make another attempt
// after attempt f.n failed with err (it may wait: retry runs it).
func (f *Forward) retries(err error) bool {
	p, n := f.p, f.n+1
	if f.deadline > 0 && mono() >= f.deadline || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return notSent(err) && n <= len(p.eps)+1 || f.idem && n <= p.attempts && p.retry.retryable(err)
}

// retry goes on with a call whose attempt failed with err, as ForwardRaw
// would, on a goroutine of its own: a Cancel or the deadline ends it.
func (f *Forward) retry(err error, res []byte) {
	ctx, cancel := context.WithCancel(context.Background())
	if f.deadline > 0 {
		cancel()
		ctx, cancel = context.WithTimeout(context.Background(), f.deadline-mono())
	}
	f.mu.Lock()
	stopped := f.stopErr
	f.retryEnd = cancel
	f.mu.Unlock()
	if stopped == nil {
		res, err = f.p.again(ctx, f.n+1, &f.tried, f.dst, f.method, f.params, nil, f.idem, true, res, err)
	} else {
		f.p.failed.Add(1)
		res, err = f.dst, stopped
	}
	f.mu.Lock()
	f.retryEnd = nil
	if f.stopErr != nil && errors.Is(err, context.Canceled) {
		err = f.stopErr // the timer's, or a Cancel's
	}
	f.mu.Unlock()
	cancel()
	if err != nil {
		res = kept(f.dst, res)
	}
	f.end(res, err, nil)
}

// end hands the answer over and puts f back for the next use.
func (f *Forward) end(res []byte, err error, later *Later) {
	done := f.done
	f.mu.Lock()
	reuse := true
	if f.timer != nil && f.armed == f.gen && !f.timer.Stop() && !f.byTimer {
		// The timer fired but its expire did not end the call: it may
		// still run, so f is not reused (it finds gen changed).
		reuse = false
	}
	f.gen++
	f.byTimer, f.stopErr = false, nil
	f.mu.Unlock()
	f.done, f.method, f.params, f.dst, f.tried = nil, "", nil, nil, 0
	if reuse {
		f.p.forwards.Put(f)
	}
	done.ForwardDone(res, err, later)
}

// Cancel ends the use of f that token names (Token) with
// context.Canceled, unless its answer is under way; the Completion then
// runs, maybe on this goroutine. For any other token it does nothing, so
// it is safe to call late.
func (f *Forward) Cancel(token uint64) { f.stop(token, context.Canceled, false) }

// expire is the timer's: the call is over its timeout.
func (f *Forward) expire() {
	f.mu.Lock()
	token := f.armed
	f.mu.Unlock()
	f.stop(token, context.DeadlineExceeded, true)
}

// stop ends the use token of f with err: its attempt in flight is
// abandoned (and failed with err, which ends f), or its retry cancelled.
func (f *Forward) stop(token uint64, err error, timer bool) {
	f.mu.Lock()
	if f.gen != token || f.stopErr != nil {
		f.mu.Unlock()
		return
	}
	f.stopErr = err
	q, e, end := f.q, f.e, f.retryEnd
	own := q != nil && e.c.calls.Abandon(q.id, &q.Call)
	f.byTimer = own && timer
	f.mu.Unlock()
	switch {
	case own:
		e.c.sendCancel(q.idBytes())
		q.Fail(err) // Completed ends f
	case end != nil:
		end()
	}
}

// Drop puts back a Forward that will not be started.
func (f *Forward) Drop() {
	f.mu.Lock()
	f.gen++
	f.mu.Unlock()
	f.done, f.method = nil, ""
	f.p.forwards.Put(f)
}

// ForwardTimeout is ForwardRaw bounded by timeout (0: by ctx only), which
// costs no context: the call is a Forward, whose timer is pooled with it,
// and the caller waits for its Completion. Where NewForward cannot take
// the call (an HTTP endpoint, a hedged method) it is ForwardRaw under
// context.WithTimeout.
func (p *Pool) ForwardTimeout(ctx context.Context, dst []byte, method string, params []byte, timeout time.Duration) ([]byte, error) {
	if timeout <= 0 {
		return p.ForwardRaw(ctx, dst, method, params)
	}
	if err := ctx.Err(); err != nil {
		return dst, err
	}
	w, _ := waiters.Get().(*waiter)
	if w == nil {
		w = &waiter{ch: make(chan struct{}, 1)}
	}
	f := p.NewForward(method, w)
	if f == nil {
		waiters.Put(w)
		tctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return p.ForwardRaw(tctx, dst, method, params)
	}
	token := f.Token()
	f.Start(dst, params, timeout)
	select {
	case <-w.ch:
	case <-ctx.Done():
		f.Cancel(token)
		<-w.ch
	}
	res, err := w.res, w.err
	w.res, w.err = nil, nil
	waiters.Put(w)
	return res, err
}

// waiter is the Completion of a Forward someone waits for
// (ForwardTimeout).
type waiter struct {
	ch  chan struct{}
	res []byte
	err error
}

var waiters sync.Pool // *waiter

func (w *waiter) ForwardDone(res []byte, err error, _ *Later) {
	w.res, w.err = res, err
	w.ch <- struct{}{}
}
