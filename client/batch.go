package client

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/rpcmsg"
)

// Batch collects calls and notifications to send as one JSON-RPC batch.
// Create it with Client.NewBatch (or Pool.NewBatch), add to it, then Send it once. A Batch is
// not safe for concurrent use.
type Batch struct {
	c      *Client
	pool   *Pool // a pool's batch (c is nil)
	items  []batchItem
	calls  int    // items that are calls
	params []byte // the items' params, encoded when added, one after another
	err    error  // the first params that could not be encoded
	sent   bool
	keep   bool // a call added by CallRaw: keep error objects (RawError)
}

type batchItem struct {
	method     string
	start, end int        // params[start:end] are the item's params
	call       *BatchCall // nil for a notification
}

// BatchCall is one call of a Batch. Its result or error is set when Send
// returns.
type BatchCall struct {
	result any
	raw    []byte
	rawErr []byte
	err    error
}

// Err returns the call's error once Send has returned: an *encode.Error for
// a JSON-RPC error response, the error of Send when the batch failed as a
// whole, or the error of decoding the result (as for Client.Call).
func (bc *BatchCall) Err() error { return bc.err }

// Raw returns the call's raw JSON result once Send has returned (nil after
// an error).
func (bc *BatchCall) Raw() []byte { return bc.raw }

// RawError returns, for a call added with CallRaw that the server answered
// with an error, the response's error object as it came (as
// Pool.ForwardRaw keeps it); nil otherwise.
func (bc *BatchCall) RawError() []byte { return bc.rawErr }

// NewBatch returns an empty batch for c.
func (c *Client) NewBatch() *Batch { return &Batch{c: c} }

// Call adds a call of method with params, encoded now as Client.Call
// encodes them (into a buffer of the batch: changing params afterwards
// changes nothing). After Send, the result is decoded into result as
// Client.Call decodes it (result is a non-nil pointer, or nil to keep only
// Raw) and its error is the BatchCall's Err.
func (b *Batch) Call(method string, params, result any) *BatchCall {
	bc := &BatchCall{result: result}
	b.add(method, params, bc)
	return bc
}

// Notify adds a notification of method with params.
func (b *Batch) Notify(method string, params any) { b.add(method, params, nil) }

func (b *Batch) add(method string, params any, bc *BatchCall) {
	start := len(b.params)
	var err error
	if b.params, err = rpcmsg.AppendParams(b.params, params, ErrParams); err != nil && b.err == nil {
		b.err = err
	}
	b.items = append(b.items, batchItem{method: method, start: start, end: len(b.params), call: bc})
	if bc != nil {
		b.calls++
	}
}

// Len returns the number of calls and notifications in b.
func (b *Batch) Len() int { return len(b.items) }

// Send sends the batch and waits for the answers to all its calls (they may
// come in any order; each is matched by its id). It returns nil when every
// call got an answer: check each BatchCall's Err for JSON-RPC errors. It
// returns an error, which every BatchCall's Err then also returns when it
// has no answer, when params could not be marshalled (nothing is sent), the
// batch could not be sent, ctx ended first or the connection was lost. An
// empty batch sends nothing. A batch can be sent once.
//
// A server rejects a batch as a whole (over its member limit, say) with one
// error response with id null. Over HTTP every call of the batch then
// fails with that error; on a stream the answer matches no call, so the
// calls wait for ctx: give Send a deadline.
//
// A batch of a Pool (Pool.NewBatch) goes to one of its endpoints, and may
// be sent again to another one, or hedged, when all its members are calls
// of idempotent methods (see Pool.NewBatch).
func (b *Batch) Send(ctx context.Context) error {
	if b.sent {
		return errBatchSent
	}
	b.sent = true
	err := b.err
	if err == nil {
		err = ctx.Err()
	}
	if err != nil || len(b.items) == 0 {
		b.failAll(err)
		return err
	}
	if b.pool != nil {
		return b.pool.sendBatch(ctx, b)
	}
	l := b.leg(b.c, nil)
	if _, err = b.send(ctx, &l); err == nil {
		err = l.wait(ctx)
	}
	b.collect(&l, err)
	return err
}

// batchLeg is one sending of a batch on one client: an entry per call of
// the batch, in order. The calls before next have completed (their
// signals taken, in a hedged batch); the others are pending until wait,
// drop or collect.
type batchLeg struct {
	c     *Client
	e     *endpoint // in a pool
	ps    []*call
	ids   []uint64
	next  int
	start time.Time
}

// leg returns a leg of b on c (of endpoint e, in a pool), with fresh ids.
func (b *Batch) leg(c *Client, e *endpoint) batchLeg {
	l := batchLeg{c: c, e: e, ps: make([]*call, 0, b.calls), ids: make([]uint64, 0, b.calls)}
	for range b.calls {
		p := c.getCall()
		p.Dst, p.KeepError = p.buf[:0], b.keep
		l.ps, l.ids = append(l.ps, p), append(l.ids, p.id)
	}
	return l
}

// complete reports whether every call of l has completed.
func (l *batchLeg) complete() bool { return l.next == len(l.ps) }

// doneChan is the completion signal of l's next call (nil when complete).
func (l *batchLeg) doneChan() <-chan struct{} {
	if l.complete() {
		return nil
	}
	return l.ps[l.next].Done()
}

// wait waits for l's remaining calls, or for ctx: then they are abandoned
// (the server told, if asked for). It returns ctx's error, else the first
// error of a call that is not the server's answer (a lost connection, a
// reply with no answer), else nil.
func (l *batchLeg) wait(ctx context.Context) error {
	var err error
	for ; l.next < len(l.ps); l.next++ {
		if werr := l.c.wait(ctx, l.ps[l.next]); werr != nil && err == nil {
			err = werr
		}
	}
	if err == nil {
		err = l.err()
	}
	return err
}

// err returns the first error of l's completed calls that is not the
// server's answer.
func (l *batchLeg) err() error {
	for _, p := range l.ps[:l.next] {
		if p.Err != nil && !answered(p.Err) {
			return p.Err
		}
	}
	return nil
}

// drop abandons l's pending calls (telling the server, where its client
// has CancelNotify), or waits for those whose completion is under way,
// and releases its entries.
func (l *batchLeg) drop() {
	for _, p := range l.ps[l.next:] {
		if l.c.calls.Abandon(p.id, &p.Call) {
			l.c.sendCancel(p.idBytes())
		} else {
			<-p.Done()
		}
	}
	l.next = len(l.ps)
	l.release()
}

// release returns l's entries, every one of them settled, to the pool.
func (l *batchLeg) release() {
	for _, p := range l.ps {
		putCall(p)
	}
	l.ps = l.ps[:0]
	l.next = 0
}

// collect gives b's calls their answers from l (whose calls are settled),
// err to those without one, and releases l.
func (b *Batch) collect(l *batchLeg, err error) {
	i := 0
	for _, it := range b.items {
		bc := it.call
		if bc == nil {
			continue
		}
		p := l.ps[i]
		i++
		bc.err = p.Err
		if bc.err == nil && p.Res == nil {
			bc.err = err // no answer
		}
		if bc.err != nil && p.Res != nil { // a kept error object
			bc.rawErr = bytes.Clone(p.Res)
			p.buf = p.Res[:0]
		}
		if bc.err == nil {
			bc.raw = bytes.Clone(p.Res)
			p.buf = p.Res[:0]
			bc.err = rpcmsg.DecodeResult(bc.raw, bc.result)
		}
	}
	l.release()
}

// answered reports whether err is the server's answer to one call: an
// error response, or a malformed response.
func answered(err error) bool {
	var e *encode.Error
	return errors.As(err, &e) || errors.Is(err, ErrBadResponse)
}

// send registers l's calls and writes the batch on l's client; on error no
// call is left pending, and queued says whether the batch had been handed
// to the transport (so some of it may have reached the server).
func (b *Batch) send(ctx context.Context, l *batchLeg) (queued bool, err error) {
	c := l.c
	l.start = time.Now()
	m, err := c.t.begin(ctx)
	if err != nil {
		return false, err
	}
	for i, p := range l.ps {
		if err := c.register(p); err != nil {
			for _, q := range l.ps[:i] {
				c.settle(q)
			}
			c.t.abort(m)
			return false, err
		}
	}
	start := len(m.b)
	m.b = encode.AppendBatchStart(m.b)
	i := 0
	for _, it := range b.items {
		m.b = encode.AppendBatchSep(m.b, start)
		params := b.params[it.start:it.end]
		if it.call == nil {
			m.b = encode.AppendNotification(m.b, it.method, params)
			continue
		}
		m.b = encode.AppendRequest(m.b, l.ps[i].idBytes(), it.method, params)
		i++
	}
	m.b = encode.AppendBatchEnd(m.b)
	if err = c.t.send(ctx, m, l.ids); err != nil {
		for _, p := range l.ps {
			c.settle(p)
		}
	}
	return true, err
}

func (b *Batch) failAll(err error) {
	for _, it := range b.items {
		if it.call != nil {
			it.call.err = err
		}
	}
}
