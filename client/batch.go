package client

import (
	"bytes"
	"context"
	"errors"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/rpcmsg"
)

// Batch collects calls and notifications to send as one JSON-RPC batch.
// Create it with Client.NewBatch, add to it, then Send it once. A Batch is
// not safe for concurrent use.
type Batch struct {
	c      *Client
	items  []batchItem
	params []byte // the items' params, encoded when added, one after another
	err    error  // the first params that could not be encoded
	sent   bool
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
	err    error
}

// Err returns the call's error once Send has returned: an *encode.Error for
// a JSON-RPC error response, the error of Send when the batch failed as a
// whole, or the error of decoding the result (as for Client.Call).
func (bc *BatchCall) Err() error { return bc.err }

// Raw returns the call's raw JSON result once Send has returned (nil after
// an error).
func (bc *BatchCall) Raw() []byte { return bc.raw }

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
	c := b.c
	var (
		ps  []*call
		bcs []*BatchCall
		ids []uint64
	)
	for _, it := range b.items {
		if it.call == nil {
			continue
		}
		p := c.getCall()
		p.Dst = p.buf[:0]
		ps, bcs, ids = append(ps, p), append(bcs, it.call), append(ids, p.id)
	}
	sendErr := b.send(ctx, ps, ids)
	err = sendErr
	for i, p := range ps {
		if sendErr == nil { // wait for each answer; after ctx ends, promptly
			if werr := c.wait(ctx, p); werr != nil && err == nil {
				err = werr
			}
		}
		if err == nil && p.Err != nil && !answered(p.Err) {
			err = p.Err // the connection was lost, the reply had no answer, ...
		}
		bc := bcs[i]
		bc.err = p.Err
		if bc.err == nil && p.Res == nil {
			bc.err = err // no answer
		}
		if bc.err == nil {
			bc.raw = bytes.Clone(p.Res)
			p.buf = p.Res[:0]
			bc.err = rpcmsg.DecodeResult(bc.raw, bc.result)
		}
		putCall(p)
	}
	return err
}

// answered reports whether err is the server's answer to one call: an
// error response, or a malformed response.
func answered(err error) bool {
	var e *encode.Error
	return errors.As(err, &e) || errors.Is(err, ErrBadResponse)
}

// send registers the calls and writes the batch; on error no call is left
// pending.
func (b *Batch) send(ctx context.Context, ps []*call, ids []uint64) error {
	c := b.c
	m, err := c.t.begin(ctx)
	if err != nil {
		return err
	}
	for i, p := range ps {
		if err := c.register(p); err != nil {
			for _, q := range ps[:i] {
				c.settle(q)
			}
			c.t.abort(m)
			return err
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
		m.b = encode.AppendRequest(m.b, ps[i].idBytes(), it.method, params)
		i++
	}
	m.b = encode.AppendBatchEnd(m.b)
	if err = c.t.send(ctx, m, ids); err != nil {
		for _, p := range ps {
			c.settle(p)
		}
	}
	return err
}

func (b *Batch) failAll(err error) {
	for _, it := range b.items {
		if it.call != nil {
			it.call.err = err
		}
	}
}
