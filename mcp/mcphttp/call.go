package mcphttp

// NOTE: a call here is the HTTP side of one request: the mcp call the
// engine runs it under (c, a seam.Call), the session and revision route
// chose, and its answer (JSON, or an event stream once its handler sends
// anything before its result). Both are pooled. An inline request frees
// its call when answered; a blocking one holds two references (fasthttp's
// goroutine and the worker), and its stream a third when a lost
// connection must cancel it; the last release frees it.

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/mcp/internal/seam"
	"github.com/jetrpc/jetrpc/mcp/internal/sse"
)

// Modes of a request's answer.
const (
	modeUndecided uint8 = iota
	modeJSON
	modeSSE
	modeCancelled
)

// call is the HTTP side of a request.
type call struct {
	h       *Handler
	c       seam.Call       // the request as the engine runs it
	sess    *session        // nil: stateless
	parent  context.Context // the parent of c's context
	version string          // the revision it is served as
	modern  bool            // served as the Modern revision

	inline    bool // runs on fasthttp's goroutine
	resumable bool // its stream has ids and is stored
	prime     bool // and begins with a priming event
	opened    bool // initialize opened its session
	status    int  // of a JSON answer, when not 200 (seam.CallTransport.SetStatus)

	mu        sync.Mutex
	mode      uint8
	st        *sse.Stream
	gen       uint64 // st's first connection
	sig       chan struct{}
	body, out []byte
	refs      atomic.Int32
}

var (
	_ seam.CallTransport = (*call)(nil)
	_ sse.Owner          = (*call)(nil)
)

// getCall makes a call of the endpoint.
func (h *Handler) getCall() *call {
	c := h.calls.Get().(*call)
	c.h = h
	c.c = h.core.GetCall(c)
	return c
}

// putCall frees c; nothing may use it afterwards.
func (h *Handler) putCall(c *call) {
	h.core.PutCall(c.c)
	select { // a signal no one took (the stream started, then the response came)
	case <-c.sig:
	default:
	}
	*c = call{sig: c.sig}
	h.calls.Put(c)
}

// Run runs a blocking request on a worker (pool.Task).
func (c *call) Run() {
	h := c.h
	out := h.e.ProcessContext(c.c, c.out[:0], c.body)
	c.out = out
	h.finishRequest(c)
	c.finish(out)
	c.release()
}

// finish delivers the response: as the JSON answer when nothing was sent
// before it, else as the stream's final event; for a cancelled call,
// neither.
func (c *call) finish(out []byte) {
	cancelled := c.c.Cancelled()
	c.mu.Lock()
	st := c.st
	if st == nil {
		c.mode = modeJSON
		if cancelled {
			c.mode = modeCancelled
		}
	}
	c.mu.Unlock()
	switch {
	case st == nil:
	case cancelled:
		st.Abandon()
	default:
		_ = st.Send(out, true)
	}
	select {
	case c.sig <- struct{}{}:
	default:
	}
}

// Cancel and Release make a call the Owner of its stream (sse.Owner).
func (c *call) Cancel() bool { return c.c.Cancel() }
func (c *call) Release()     { c.release() }

// release drops one of the holds on a blocking call.
func (c *call) release() {
	if c.refs.Add(-1) == 0 {
		c.h.putCall(c)
	}
}

// The call as package mcp reads it (seam.CallTransport).
func (c *call) Endpoint() any      { return c.h }
func (c *call) Inline() bool       { return c.inline }
func (c *call) SetStatus(code int) { c.status = code }
func (c *call) StateKey() []byte   { return c.h.ids.key }
func (c *call) CloseStream() bool  { return c.closeStream() }

// Stream returns the call's event stream (nil while it has none).
func (c *call) Stream() seam.Stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st == nil {
		return nil
	}
	return c.st
}

// sendEvent sends a message about the call on its stream, starting the
// stream with the first one.
func (c *call) sendEvent(msg []byte) error {
	st, err := c.ensureStream()
	if err != nil {
		return err
	}
	return st.Send(msg, false)
}

// ensureStream returns the call's stream, starting it (and telling the
// request's goroutine) when it has none yet.
func (c *call) ensureStream() (*sse.Stream, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st != nil {
		return c.st, nil
	}
	if c.mode != modeUndecided {
		return nil, sse.ErrDone // answered as JSON already: a message after the result
	}
	h := c.h
	var sess *session
	if c.resumable {
		sess = c.sess
	}
	st := h.newStream(sess, c.prime, false)
	if !c.resumable && !c.inline {
		st.SetOwner(c) // a lost connection cancels c (the stream holds it until then)
		c.refs.Add(1)
	}
	c.gen = st.Attach(c.prime, false, 0)
	c.st, c.mode = st, modeSSE
	if c.sig != nil {
		select {
		case c.sig <- struct{}{}:
		default:
		}
	}
	return st, nil
}

// closeStream is CloseSSEStream.
func (c *call) closeStream() bool {
	if !c.resumable || !c.prime {
		return false
	}
	st, err := c.ensureStream()
	if err != nil {
		return false
	}
	st.CutConn()
	return true
}

// callOf returns the call of this endpoint that ctx belongs to, or nil.
func (h *Handler) callOf(ctx context.Context) *call {
	if c, _ := h.core.TransportOf(ctx).(*call); c != nil && c.h == h {
		return c
	}
	return nil
}

// sendAnon is the SendFunc of stateless requests: only messages about a
// request have a way to the client.
func (h *Handler) sendAnon(ctx context.Context, msg []byte) error {
	if c := h.callOf(ctx); c != nil {
		return c.sendEvent(msg)
	}
	return dispatch.ErrNoPeer
}
