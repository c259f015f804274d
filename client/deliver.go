package client

// NOTE: what the client does with each message it receives. Responses
// complete their pending calls (complete); calls and notifications from the
// server go to the Handler's goroutine (enqueue), or are answered -32601 on
// the spot when there is none; malformed input is answered as PROTOCOL.md
// says (-32700, -32600) unless it is a malformed response to one of our
// calls, which then fails with ErrBadResponse. Nothing here panics on any
// input.

import (
	"bytes"
	"context"
	"log/slog"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/pending"
	"github.com/jetrpc/jetrpc/internal/rpcmsg"
)

// inState is what delivering needs per reading goroutine.
type inState struct {
	p     decode.Parser
	out   []byte // answers built on the spot
	later Later  // what the Completions of forwards left (forward_async.go)
}

func newInState(maxMessage int) *inState {
	st := &inState{}
	st.p.MaxBatch = maxMessage // a response batch is as long as the request's
	return st
}

// deliver handles one message from the server. msg is valid only during the
// call.
func (c *Client) deliver(st *inState, msg []byte) {
	m, err := st.p.Parse(msg)
	if err != nil {
		if c.debugOn() {
			c.log.Debug("client: malformed message from the server", "err", err.Error())
		}
		c.answer(st, encode.AppendStdError(st.out[:0], nil, encode.CodeParseError))
		return
	}
	switch m.Kind {
	case decode.Result, decode.ErrorResponse:
		c.complete(st, m)
	case decode.Call:
		if c.handler == nil {
			c.answer(st, encode.AppendStdError(st.out[:0], m.ID, encode.CodeMethodNotFound))
			return
		}
		c.enqueue(msg)
	case decode.Notification:
		if c.handler != nil {
			c.enqueue(msg)
		}
	case decode.Batch:
		c.deliverBatch(st, msg)
	default: // Invalid
		if !c.completeBad(m) {
			c.answer(st, encode.AppendStdError(st.out[:0], m.ID, encode.CodeInvalidRequest))
		}
	}
}

// deliverBatch handles a batch: responses complete their calls; requests go
// to the handler as the whole batch, or are answered here without one.
func (c *Client) deliverBatch(st *inState, msg []byte) {
	requests := false
	out := st.out[:0]
	out = encode.AppendBatchStart(out)
	ms := st.p.Batch()
	for i := range ms {
		m := &ms[i]
		switch m.Kind {
		case decode.Result, decode.ErrorResponse:
			c.complete(st, m)
		case decode.Notification:
			requests = true
		case decode.Call:
			requests = true
			out = encode.AppendBatchSep(out, 0)
			out = encode.AppendStdError(out, m.ID, encode.CodeMethodNotFound)
		default:
			if !c.completeBad(m) {
				requests = true
				out = encode.AppendBatchSep(out, 0)
				out = encode.AppendStdError(out, m.ID, encode.CodeInvalidRequest)
			}
		}
	}
	out = encode.FinishBatch(out, 0)
	switch {
	case !requests:
	case c.handler != nil:
		c.enqueue(msg)
	default:
		c.answer(st, out)
		return
	}
	st.out = out
}

// complete hands a response to its pending call, or drops it.
func (c *Client) complete(st *inState, m *decode.Message) {
	var p *pending.Call
	if id, ok := rpcmsg.ParseID(m.ID); ok {
		p = c.calls.Take(id)
	}
	if p == nil {
		c.drop(m)
		return
	}
	if f, ok := p.Then.(*Forward); ok { // this goroutine completes it: it may leave work
		f.later = &st.later
	}
	if m.Kind == decode.Result {
		p.Resolve(m.Result)
	} else {
		if p.KeepError {
			p.Res = append(p.Dst, m.Error...)
		}
		p.Fail(rpcmsg.ParseError(m.Error))
	}
}

// completeBad fails the call that a malformed response answers and reports
// whether m was such a response (one with our kind of id and no method).
func (c *Client) completeBad(m *decode.Message) bool {
	if m.Method != nil || m.Seen&(decode.HasResult|decode.HasError) == 0 {
		return false
	}
	id, ok := rpcmsg.ParseID(m.ID)
	if !ok {
		return false
	}
	p := c.calls.Take(id)
	if p == nil {
		c.drop(m)
		return true
	}
	p.Fail(badResponse(m.Reason))
	return true
}

func (c *Client) drop(m *decode.Message) {
	c.dropped.Add(1)
	if c.debugOn() {
		c.log.Debug("client: dropped a response that matches no pending call", "id", string(m.ID))
	}
}

func (c *Client) debugOn() bool { return c.log.Enabled(context.Background(), slog.LevelDebug) }

// answer writes out, an answer built on the spot, on a stream, and keeps
// its buffer in st.
func (c *Client) answer(st *inState, out []byte) {
	if len(out) > 0 {
		c.write(out)
	}
	if cap(out) <= maxKeptBuf {
		st.out = out[:0]
	}
}

// write sends one complete message on a stream (answers to the server);
// errors close the client and need no other report.
func (c *Client) write(msg []byte) {
	if !c.t.stream() {
		return
	}
	m, err := c.t.begin(nil) // an answer for a lost connection is dropped
	if err != nil {
		return
	}
	m.b = append(m.b, msg...)
	c.t.send(context.Background(), m, nil)
}

// enqueue hands a copy of msg to the handler's goroutine, waiting while its
// queue is full (the server then waits for the client to read), unless the
// client closes.
func (c *Client) enqueue(msg []byte) {
	if c.inbound == nil {
		return // HTTP: nobody to answer to
	}
	select {
	case c.inbound <- bytes.Clone(msg):
		c.queued.Add(1)
	case <-c.done:
	}
}

// serveInbound runs the handler on the messages the server sent on its own,
// one at a time, until the client closes.
func (c *Client) serveInbound() {
	var out []byte
	for {
		select {
		case <-c.done:
			return
		case msg := <-c.inbound:
			out = c.handle(out[:0], msg)
			if len(out) > 0 {
				c.write(out)
			}
			c.markHandled()
			if cap(out) > maxKeptBuf {
				out = nil
			}
		}
	}
}

// handle runs the handler on msg; a panic is logged and answers nothing.
func (c *Client) handle(dst, msg []byte) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("client: handler panicked", "panic", r)
			out = dst[:0]
		}
	}()
	if h, ok := c.handler.(contextHandler); ok {
		return h.ProcessContext(c.ctx, dst, msg)
	}
	return c.handler.Process(dst, msg)
}
