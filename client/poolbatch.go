package client

// NOTE: a pool's batches (Pool.NewBatch). A batch whose members are all
// calls of idempotent methods is treated as one idempotent call: it fails
// over as a whole to another endpoint on a transport error (attempts,
// backoff and budget as for a call, one token per extra sending), and is
// hedged as a whole. Each sending is a leg (batchLeg, batch.go): an entry
// per call, registered on one client. A hedged batch waits, on each leg,
// for the signal of its next pending entry in turn (a leg is complete when
// all its entries have signalled), beside the hedge timer and ctx, so it
// needs no goroutine. The first leg complete with no transport error wins;
// the other is dropped: its pending entries are abandoned, each cancelled
// with $/cancelRequest where its client has CancelNotify, or waited for
// when their completion is under way. A batch with a notification or a
// call of a method not declared idempotent is sent once; it moves to
// another endpoint only when nothing of it was handed to the transport.

import (
	"context"
	"time"
)

// NewBatch returns an empty batch whose Send goes to one of the pool's
// endpoints, with the same Call, Notify and Send as Client.NewBatch's.
//
// When every member is a call of a method the pool's RetryPolicy declares
// idempotent, the batch is one idempotent unit: on a transport error it is
// sent again, whole, to another endpoint (MaxAttempts endpoints at most,
// one budget token each), and with hedging on (PoolOptions.HedgeAfter) a
// batch not fully answered after the hedge delay is sent to a second
// endpoint too: the first sending whose every call has an answer wins, and
// the other is abandoned. JSON-RPC errors of members are answers: they are
// not retried, even with codes the policy lists.
//
// A batch with a notification, or with a call of any other method, is
// sent exactly once (a notification must not reach a server twice): it
// goes to another endpoint only when its endpoint refused it before any of
// it was sent (ErrDisconnected, a closed client, a refused dial). When
// that endpoint's connection is lost later, its calls fail with an error
// wrapping ErrConnectionLost, as Send returns.
func (p *Pool) NewBatch() *Batch { return &Batch{pool: p} }

// idempotent reports whether every member of b is a call of a method r
// declares idempotent.
func (b *Batch) idempotent(r *retrier) bool {
	if r == nil {
		return false
	}
	for _, it := range b.items {
		if it.call == nil || !r.idempotent(it.method) {
			return false
		}
	}
	return true
}

// sendBatch is Batch.Send for a pool's batch: attempts on endpoints until
// one answers every call or the policy says stop.
func (p *Pool) sendBatch(ctx context.Context, b *Batch) error {
	p.batches.Add(1)
	idem := b.idempotent(p.retry)
	if p.retry != nil {
		p.retry.budget.depositCall()
	}
	var tried uint64
	var l batchLeg
	queued, err := p.batchAttempt(ctx, b, p.pick(tried), &tried, &l, idem)
	for n := 2; err != nil && ctx.Err() == nil; n++ {
		again := !queued && notSent(err) && n <= len(p.eps)+1 // safe for any batch
		if !again && idem && n <= p.attempts && p.retry.retryable(err) && p.retry.budget.take() {
			p.retries.Add(1)
			if !sleepCtx(ctx, p.retry.wait(n)) {
				break
			}
			again = true
		}
		if !again {
			break
		}
		p.failovers.Add(1)
		l.release()
		queued, err = p.batchAttempt(ctx, b, p.pick(tried), &tried, &l, idem)
	}
	if err != nil {
		p.failed.Add(1)
	}
	b.collect(&l, err)
	return err
}

// batchAttempt sends b on e (hedged when the pool hedges and b is
// idempotent) and waits for it; l is the leg whose answers count. queued
// says whether any of b may have reached a server.
func (p *Pool) batchAttempt(ctx context.Context, b *Batch, e *endpoint, tried *uint64, l *batchLeg, idem bool) (bool, error) {
	*tried |= p.bit(e)
	if idem && p.hedge.on() && len(p.eps) > 1 {
		return p.hedgedBatch(ctx, b, e, tried, l)
	}
	*l = b.leg(e.c, e)
	if queued, err := p.startLeg(ctx, b, l); err != nil {
		return queued, err
	}
	return true, p.finishLeg(ctx, l)
}

// hedgedBatch makes a hedged attempt of b starting on e.
func (p *Pool) hedgedBatch(ctx context.Context, b *Batch, e *endpoint, tried *uint64, l *batchLeg) (bool, error) {
	if !e.c.t.stream() && ctx.Done() == nil {
		// An HTTP POST under a context that cannot end runs in the
		// caller: give it one, so the hedge can go meanwhile.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
	}
	*l = b.leg(e.c, e)
	if queued, err := p.startLeg(ctx, b, l); err != nil {
		return queued, err
	}
	delay := p.hedge.wait()
	if delay <= 0 {
		return true, p.finishLeg(ctx, l)
	}
	t := p.hedge.timer(delay)
	fired := false
wait:
	for !l.complete() {
		select {
		case <-l.doneChan():
			l.next++
		case <-ctx.Done():
			break wait
		case <-t.C:
			fired = true
			break wait
		}
	}
	p.hedge.putTimer(t)
	if !fired {
		return true, p.finishLeg(ctx, l)
	}
	// The hedge: another endpoint, if there is one and the budget allows.
	e2 := p.pick(*tried)
	if e2 == e || p.retry != nil && !p.retry.budget.take() {
		return true, p.finishLeg(ctx, l)
	}
	*tried |= p.bit(e2)
	h := b.leg(e2.c, e2)
	if _, err := p.startLeg(ctx, b, &h); err != nil {
		h.release()
		return true, p.finishLeg(ctx, l)
	}
	p.hedge.sent.Add(1)
	good := func(x *batchLeg) bool {
		if !x.complete() {
			return false
		}
		err := x.err()
		return err == nil || !transportErr(err)
	}
	for {
		switch {
		case good(l) || l.complete() && h.complete():
			p.dropLeg(&h)
			return true, p.finishLeg(ctx, l)
		case good(&h):
			p.dropLeg(l) // l's entries are released: nothing writes to them
			p.hedge.wins.Add(1)
			*l = h
			return true, p.finishLeg(ctx, l)
		}
		select {
		case <-l.doneChan():
			l.next++
		case <-h.doneChan():
			h.next++
		case <-ctx.Done():
			p.dropLeg(&h)
			return true, p.finishLeg(ctx, l)
		}
	}
}

// startLeg sends b on l's endpoint, whose pending count includes l's
// calls until finishLeg or dropLeg.
func (p *Pool) startLeg(ctx context.Context, b *Batch, l *batchLeg) (bool, error) {
	n := int64(len(l.ps))
	l.e.pending.Add(n)
	queued, err := b.send(ctx, l)
	if err != nil {
		l.e.pending.Add(-n)
		p.health(l.e, l.start, err)
	}
	return queued, err
}

// finishLeg waits for the rest of l (abandoning it if ctx ends) and
// records its outcome: nil, ctx's error, or the first error of a call that
// is not an answer.
func (p *Pool) finishLeg(ctx context.Context, l *batchLeg) error {
	err := l.wait(ctx)
	l.e.pending.Add(-int64(len(l.ps)))
	p.health(l.e, l.start, err)
	return err
}

// dropLeg abandons l, the loser of a hedged batch, and releases it.
func (p *Pool) dropLeg(l *batchLeg) {
	e, n := l.e, int64(len(l.ps))
	l.drop()
	e.pending.Add(-n)
	e.slower(time.Since(l.start))
}
