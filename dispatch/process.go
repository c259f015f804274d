package dispatch

import (
	"context"
	"errors"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
)

// Process appends the response to msg, one complete message (single or
// batch), onto dst and returns it. It returns dst unchanged when no response
// is due (notifications, a batch of only notifications, responses). Handler
// contexts derive from the engine's context. Safe for concurrent use.
func (e *Engine) Process(dst, msg []byte) []byte {
	return e.ProcessContext(e.ctx, dst, msg)
}

// ProcessContext is Process with ctx as the parent of the handlers' contexts
// (a server passes a context cancelled on shutdown or disconnect).
func (e *Engine) ProcessContext(ctx context.Context, dst, msg []byte) []byte {
	if !e.frozen.Load() {
		e.Freeze()
	}
	s := e.getState()
	start := len(dst)
	m, err := s.p.Parse(msg)
	batch := 0
	if err == nil && m.Kind == decode.Batch {
		batch = s.p.BatchLen()
		e.lookupBatch(s)
		dst = e.processBatch(ctx, s, dst, len(msg))
	} else {
		dst = e.processSingle(ctx, s, dst, m, err)
	}
	e.putState(s)
	if e.obs != nil {
		e.obs.Message(len(msg), len(dst)-start, batch)
	}
	return dst
}

// processSingle answers a message that is not a batch: one that did not
// parse (err), or one request, response or invalid member (m).
func (e *Engine) processSingle(ctx context.Context, s *state, dst []byte, m *decode.Message, err error) []byte {
	if err != nil {
		return e.appendParseError(s, dst, err)
	}
	s.cc.Context = ctx
	return e.processOne(&s.cc, dst, m, e.lookup(m))
}

// lookup returns the method a Call or Notification names, or nil.
func (e *Engine) lookup(m *decode.Message) *method {
	if m.Kind != decode.Call && m.Kind != decode.Notification {
		return nil
	}
	return e.table.lookup(m.Method)
}

// processOne appends the response to one classified message, if one is due;
// md is its method (e.lookup(m)).
func (e *Engine) processOne(cc *callCtx, dst []byte, m *decode.Message, md *method) []byte {
	switch m.Kind {
	case decode.Call, decode.Notification:
		return e.serve(cc, dst, m, md)
	case decode.Invalid:
		return e.appendInvalid(dst, m)
	default: // a Response: to a call of the connection's Peer, or dropped
		if !deliverToPeer(cc.Context, m) {
			e.dropped.Add(1)
			e.observe(EventDropped)
		}
		return dst
	}
}

// appendInvalid answers an Invalid Request, with error.data saying why.
func (e *Engine) appendInvalid(dst []byte, m *decode.Message) []byte {
	if e.obs != nil {
		e.observeInvalid(m.Reason)
	}
	return encode.AppendError(dst, m.ID, encode.CodeInvalidRequest,
		encode.CodeInvalidRequest.String(), e.invalidData[m.Reason])
}

// serve runs md, the method of a Call or Notification (nil: not found).
func (e *Engine) serve(cc *callCtx, dst []byte, m *decode.Message, md *method) []byte {
	if md == nil {
		if e.obs != nil {
			e.observeUnknown(cc, m)
		}
		if m.Kind == decode.Notification {
			return dst
		}
		return encode.AppendStdError(dst, m.ID, encode.CodeMethodNotFound)
	}
	cc.meta, cc.id, cc.method = m.Meta, m.ID, m.Method
	start := len(dst)
	var t0 time.Duration
	if md.obs != nil {
		t0 = e.beginCall(md.obs, cc)
	}
	if m.Kind == decode.Notification {
		_, err := e.invoke(md, cc, m.Params, dst) // its result, if any, is dropped
		if md.obs != nil {
			e.endCall(md.obs, cc, t0, err, true)
		}
		cc.clear()
		return dst[:start]
	}
	dst = encode.AppendResultStart(dst, m.ID)
	mark := len(dst)
	out, err := e.invoke(md, cc, m.Params, dst)
	if md.obs != nil {
		e.endCall(md.obs, cc, t0, err, false)
	}
	replied := cc.replied
	cc.clear()
	switch {
	case replied: // the handler sent its response itself (Peer.Reply)
		return dst[:start]
	case err != nil:
		return appendHandlerError(dst[:start], m.ID, err)
	case len(out) < mark: // the handler returned its own bytes, not dst extended
		out = append(dst[:mark], out...)
	}
	if len(out) == mark {
		out = append(out, "null"...)
	}
	return encode.AppendResultEnd(out)
}

// invoke calls the handler, under CallTimeout when it applies; the runs of
// a method that may block are timed (cost.go).
func (e *Engine) invoke(md *method, cc *callCtx, params, dst []byte) ([]byte, error) {
	if md.inline {
		return e.call(md, cc, params, dst)
	}
	var t0 time.Time
	timed := !md.concurrent && md.cost.timed(cc)
	if timed {
		t0 = time.Now()
	}
	var out []byte
	var err error
	if e.callTimeout > 0 {
		out, err = e.invokeTimed(md, cc, params, dst)
	} else {
		out, err = e.call(md, cc, params, dst)
	}
	if timed {
		md.cost.record(time.Since(t0))
	}
	return out, err
}

// invokeTimed calls a handler under CallTimeout: its context is cancelled
// when the time is up, and a call that overran is a timeout whatever the
// handler returned.
func (e *Engine) invokeTimed(md *method, cc *callCtx, params, dst []byte) ([]byte, error) {
	parent := cc.Context
	ctx, cancel := context.WithTimeout(parent, e.callTimeout)
	cc.Context = ctx
	out, err := e.call(md, cc, params, dst)
	cc.Context = parent
	if ctx.Err() == context.DeadlineExceeded && parent.Err() == nil {
		out, err = dst, e.errTimeout
		e.observe(EventTimeout)
	}
	cancel()
	return out, err
}

// call calls the handler, turning a panic into an Internal error.
func (e *Engine) call(md *method, cc *callCtx, params, dst []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("jetrpc: handler panicked", "method", md.name, "panic", r, "stack", string(debug.Stack()))
			out, err = dst, errPanic
		}
	}()
	return md.h.ServeRPC(cc, params, dst)
}

var errPanic = encode.NewError(encode.CodeInternalError, encode.CodeInternalError.String(),
	[]byte(`"handler panicked"`))

// appendHandlerError appends the error response for a handler's error.
func appendHandlerError(dst, id []byte, err error) []byte {
	if re, ok := err.(*Error); ok {
		return encode.AppendErrorValue(dst, id, re)
	}
	var re *Error
	switch {
	case errors.As(err, &re):
		return encode.AppendErrorValue(dst, id, re)
	case errors.Is(err, context.DeadlineExceeded):
		return encode.AppendStdError(dst, id, encode.CodeTimeout)
	case errors.Is(err, context.Canceled):
		return encode.AppendStdError(dst, id, encode.CodeShuttingDown)
	}
	data := encode.AppendString(nil, err.Error())
	return encode.AppendError(dst, id, encode.CodeInternalError, encode.CodeInternalError.String(), data)
}

// appendParseError answers bytes that are not one valid JSON value. Nesting
// deeper than MaxDepth is a parse error too, with error.data naming the
// limit: the scanner gave up there, so it cannot claim the rest was JSON.
func (e *Engine) appendParseError(s *state, dst []byte, err error) []byte {
	se, _ := err.(*decode.SyntaxError)
	if se != nil && se.Err == decode.ErrDepth {
		e.observe(EventTooDeep)
		return encode.AppendError(dst, nil, encode.CodeParseError,
			encode.CodeParseError.String(), e.depthData)
	}
	e.observe(EventParseError)
	s.scratch = append(s.scratch[:0], '"')
	s.scratch = append(s.scratch, "invalid JSON"...)
	if se != nil {
		if se.Err == decode.ErrUTF8 {
			s.scratch = append(s.scratch[:0], `"invalid UTF-8`...)
		}
		s.scratch = append(s.scratch, " at offset "...)
		s.scratch = strconv.AppendInt(s.scratch, int64(se.Offset), 10)
	}
	s.scratch = append(s.scratch, '"')
	return encode.AppendError(dst, nil, encode.CodeParseError, encode.CodeParseError.String(), s.scratch)
}
