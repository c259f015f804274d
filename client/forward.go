package client

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jetrpc/jetrpc/encode"
)

// CallRaw adds a call of method with params given as raw JSON (an array
// or an object; nil: none), copied as they are, for a caller that forwards
// params it never decoded (a gateway). Its answer is the BatchCall's Raw
// result or Err after Send; an error response's object as it came is its
// RawError.
func (b *Batch) CallRaw(method string, params []byte) *BatchCall {
	b.keep = true
	bc := &BatchCall{}
	b.addRaw(method, params, bc)
	return bc
}

// NotifyRaw adds a notification of method with raw params, as CallRaw.
func (b *Batch) NotifyRaw(method string, params []byte) { b.addRaw(method, params, nil) }

func (b *Batch) addRaw(method string, params []byte, bc *BatchCall) {
	if err := checkParams(params); err != nil && b.err == nil {
		b.err = err
	}
	start := len(b.params)
	b.params = append(b.params, params...)
	b.items = append(b.items, batchItem{method: method, start: start, end: len(b.params), call: bc})
	if bc != nil {
		b.calls++
	}
}

// NotifyRaw sends a notification of method with params given as raw JSON
// (an array or an object; nil: none), as Notify does.
func (c *Client) NotifyRaw(ctx context.Context, method string, params []byte) error {
	if err := checkParams(params); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m, err := c.t.begin(ctx)
	if err != nil {
		return err
	}
	m.b = encode.AppendNotification(m.b, method, params)
	m.b = c.traceMessage(ctx, m.b)
	return c.t.send(ctx, m, nil)
}

// NotifyRaw sends a notification with raw params to one of the endpoints,
// once.
func (p *Pool) NotifyRaw(ctx context.Context, method string, params []byte) error {
	return p.pick(0).c.NotifyRaw(ctx, method, params)
}

// Probe calls method with raw params on the pool's i-th endpoint only (a
// health check, 0 <= i < the number of clients) and records the outcome as
// a call's: a transport failure counts toward ejecting the endpoint; an
// answer, an error response included, re-admits an ejected one at once
// (its breaker closes). It returns the call's error.
func (p *Pool) Probe(ctx context.Context, i int, method string, params []byte) error {
	_, err := p.CallRawOn(ctx, i, nil, method, params)
	return err
}

// ForwardRaw is CallRaw for a caller that passes the server's answer on (a
// gateway): when the server answers with an error, the error is its
// *encode.Error as for CallRaw, and the slice returned is dst with the
// response's error object appended as it came (every member, in the
// server's order and escaping), where CallRaw returns dst unchanged. After
// any other failure it returns dst. Its allocations are CallRaw's.
func (p *Pool) ForwardRaw(ctx context.Context, dst []byte, method string, params []byte) ([]byte, error) {
	if err := checkParams(params); err != nil {
		return dst, err
	}
	if err := ctx.Err(); err != nil {
		return dst, err
	}
	return p.do(ctx, dst, method, params, nil, true)
}

// CallRawOn calls method with raw params on the pool's i-th endpoint only,
// as CallRaw does but without failover or hedging (a call pinned to one
// server: a subscription), and records the outcome as a call's.
func (p *Pool) CallRawOn(ctx context.Context, i int, dst []byte, method string, params []byte) ([]byte, error) {
	return p.callOn(ctx, i, dst, method, params, false)
}

// ForwardRawOn is CallRawOn that keeps an error response's object, as
// ForwardRaw does.
func (p *Pool) ForwardRawOn(ctx context.Context, i int, dst []byte, method string, params []byte) ([]byte, error) {
	return p.callOn(ctx, i, dst, method, params, true)
}

func (p *Pool) callOn(ctx context.Context, i int, dst []byte, method string, params []byte, keep bool) ([]byte, error) {
	if i < 0 || i >= len(p.eps) {
		return dst, errors.New("client: Pool: no endpoint " + strconv.Itoa(i))
	}
	if err := checkParams(params); err != nil {
		return dst, err
	}
	e := p.eps[i]
	c := e.c
	q := c.getCall()
	q.Dst, q.KeepError = dst, keep
	e.pending.Add(1)
	start := time.Now()
	err := c.do(ctx, q, method, params, nil)
	if err == nil {
		err = q.Err
	}
	res := q.Res
	putCall(q)
	e.pending.Add(-1)
	if _, answered := p.health(e, start, err); answered {
		e.until.Store(0)
	}
	if err != nil {
		return kept(dst, res), err
	}
	return res, nil
}

// Usable reports whether the pool's i-th endpoint may take calls: not
// ejected, and its client connected.
func (p *Pool) Usable(i int) bool {
	return i >= 0 && i < len(p.eps) && p.eps[i].usable(time.Now().UnixNano())
}
