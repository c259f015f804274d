package dispatch

// NOTE: a result written in pieces (StreamResult). The writer makes valid
// JSON by construction rather than validating bytes as they come: a
// handler opens and closes arrays, objects and strings, writes keys, string
// bytes (escaped here, a UTF-8 sequence cut between two Writes held back
// until it is whole) and whole values (validated like any result). A small
// stack of open containers decides where commas go and refuses anything
// out of place with a sticky error. So there is no resumable validator to
// run over every byte twice, and a handler that writes text (the common
// case: a log, a trace, a blob) pays one escaping pass, the one AppendString
// does.
//
// Where the bytes go is decided when the handler takes the writer: if the
// call's transport offers an engineconn.Streamer (NDJSON, WebSocket, HTTP
// chunked) and the call is not a batch member, the response's head and the
// result go out in pieces of about streamChunk bytes as they fill, and the
// engine ends the response when the handler returns (End ok, or cut off
// when it failed after bytes went out). Otherwise the result collects in a
// buffer bounded by MaxResponse (MaxBatchResponse for a batch member) and
// is answered like a returned result; over the bound, writes fail with
// ErrResponseTooLarge and the call is answered the ResponseTooLarge
// condition. A result that never fills one piece is answered from the
// buffer on every transport, so a short streamed result looks exactly like
// a returned one.

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
	"github.com/jetrpc/jetrpc/internal/engineconn"
	"github.com/jetrpc/jetrpc/internal/pool"
)

// streamChunk is the size of the pieces a streamed result goes out in.
const streamChunk = 64 << 10

// Errors of a ResultWriter. They are sticky: once a write failed, every
// later one returns the same error, and the call is answered as failed.
var (
	// ErrResultMisuse: a ResultWriter method was called where it cannot
	// make valid JSON (a key outside an object, a value after the
	// result's one value, Write outside a string, an End that closes
	// nothing, nesting deeper than the decoder's limit, a write after the
	// handler returned).
	ErrResultMisuse = errors.New("dispatch: ResultWriter call out of place")
	// ErrResultValue: Value was given bytes that are not one valid JSON
	// value.
	ErrResultValue = errors.New("dispatch: ResultWriter.Value: not one valid JSON value")
	// ErrResponseTooLarge: the result is held in memory (see
	// StreamResult) and went over MaxResponse (MaxBatchResponse for a
	// batch member). The call is answered the ResponseTooLarge condition.
	ErrResponseTooLarge = errors.New("dispatch: result over the response limit")
)

// ResultWriter writes the result of one call in pieces, as its handler
// produces it: see StreamResult. The JSON it writes is valid by
// construction: containers and strings are opened and closed explicitly,
// commas and colons are placed by the writer, string bytes are escaped and
// whole values are validated, and a call out of place fails with
// ErrResultMisuse. Each method returns the writer's sticky error: the
// first failure (out of place, too large, or the connection gone), after
// which nothing more is written. A ResultWriter is for the handler's own
// goroutine (not safe for concurrent use) and only until the handler
// returns; after that every call fails with ErrResultMisuse.
type ResultWriter struct {
	md   *method
	call *ctxCell            // its context: a piece is not sent once it is done
	sink engineconn.Streamer // nil: the result is held in buf
	buf  *pool.Buffer        // the bytes not yet handed to sink (all of them without one)
	hdr  int                 // with a sink, before the first piece: the response's head in buf[:hdr]
	max  int                 // without a sink: the most bytes of the result

	err      error
	started  bool   // pieces went to sink
	closed   bool   // the handler returned
	stack    []byte // open containers, '[' or '{'
	inStr    bool   // a string is open
	comma    bool   // the innermost container has a member: the next needs ','
	wantVal  bool   // an object's key was written: its value is due
	complete bool   // the result's one value is written
	part     [utf8.UTFMax]byte
	npart    int // part[:npart]: a UTF-8 sequence Write was cut inside
}

// StreamResult returns the ResultWriter of the call whose handler got ctx.
// A handler that takes it writes its result with it and returns a nil or
// empty result (and a nil error when the result is complete); the engine
// then ends the response. Taking the writer costs the call one small
// allocation; a handler that never takes it pays nothing.
//
// Where the call's transport can send a response before it is complete
// (an NDJSON stream, a WebSocket message as fragments, an HTTP body with
// chunked transfer encoding) the result goes out in pieces as it is
// written and is never held whole: MaxResponse does not cap it (the
// operator caps it with the method's own bound, or with Method.Timeout /
// CallTimeout for its time). Elsewhere (Content-Length and len32
// framings, batch members, Process without a transport, Server-Sent
// Events) it is held and answered like a returned result, up to
// MaxResponse (MaxBatchResponse for a batch member); beyond that writes
// fail with ErrResponseTooLarge and the call gets the ResponseTooLarge
// error. A handler that fails before anything went out is answered its
// error as usual; one that fails after (an error returned, or an
// unfinished value) leaves a response that cannot be completed, which the
// transport cuts off so that the client cannot take it for a whole answer
// (docs/transports.md). The handler's context ends when the client goes
// away; writes then fail too.
//
// StreamResult returns nil when ctx is not a call's context (or the call
// ended). For a notification it returns a writer whose output is dropped.
func StreamResult(ctx context.Context) *ResultWriter {
	h, ok := ctx.Value(callKey).(*ctxCell)
	if !ok {
		return nil
	}
	rc := h.enter()
	if rc == nil {
		return nil
	}
	defer rc.leave()
	if rc.md == nil {
		return nil
	}
	_, parent := h.parent()
	d := h.makeDone(rc, parent)
	if d.w != nil {
		return d.w
	}
	w := &ResultWriter{md: rc.md, call: h, buf: pool.GetBuffer()}
	e := rc.md.e
	switch {
	case rc.idp == nil: // a notification: nothing is answered
		w.sink = discard{}
	case !rc.inBatch:
		// A Detacher's pieces can go out only once the caller returned:
		// a call running on the caller's goroutine holds its result.
		s, _ := parent.Value(engineconn.StreamKey{}).(engineconn.Streamer)
		if _, det := s.(engineconn.Detacher); !det && s != nil {
			w.sink = s
			w.buf.B = encode.AppendResultStart(w.buf.B, rc.id())
			w.hdr = len(w.buf.B)
		}
	}
	w.max = e.maxResp
	if rc.inBatch {
		w.max = min(e.maxResp, e.maxBatchResp)
	}
	d.w = w
	return w
}

// discard is the Streamer of a notification's writer.
type discard struct{}

func (discard) Piece([]byte, bool) error { return nil }
func (discard) End([]byte, bool)         {}

// BeginArray opens an array.
func (w *ResultWriter) BeginArray() error { return w.open('[') }

// EndArray closes the innermost array.
func (w *ResultWriter) EndArray() error { return w.close('[', ']') }

// BeginObject opens an object; its members are written as Key then a
// value.
func (w *ResultWriter) BeginObject() error { return w.open('{') }

// EndObject closes the innermost object.
func (w *ResultWriter) EndObject() error { return w.close('{', '}') }

// Key writes the next member's name in the innermost object; its value
// comes next.
func (w *ResultWriter) Key(name string) error {
	if w.err != nil {
		return w.err
	}
	if w.inStr || len(w.stack) == 0 || w.stack[len(w.stack)-1] != '{' || w.wantVal {
		return w.fail(ErrResultMisuse)
	}
	if w.comma {
		w.buf.B = append(w.buf.B, ',')
	}
	w.buf.B = append(encode.AppendString(w.buf.B, name), ':')
	w.wantVal = true
	return w.maybeFlush()
}

// BeginString opens a string value; Write and WriteString append to it,
// EndString closes it.
func (w *ResultWriter) BeginString() error {
	if err := w.before(); err != nil {
		return err
	}
	w.buf.B = append(w.buf.B, '"')
	w.inStr = true
	return nil
}

// Write appends p to the open string, escaped as encode.AppendString
// does (invalid UTF-8 becomes U+FFFD); a UTF-8 sequence cut between two
// Writes is kept whole. It implements io.Writer: n is len(p) unless it
// fails.
func (w *ResultWriter) Write(p []byte) (int, error) {
	return w.WriteString(bytesconv.B2S(p))
}

// WriteString is Write for a string.
func (w *ResultWriter) WriteString(s string) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if !w.inStr {
		return 0, w.fail(ErrResultMisuse)
	}
	n := len(s)
	if w.npart > 0 { // complete the sequence the last Write was cut inside
		for len(s) > 0 && w.npart < utf8.UTFMax && !utf8.FullRune(w.part[:w.npart]) {
			w.part[w.npart] = s[0]
			w.npart++
			s = s[1:]
		}
		if !utf8.FullRune(w.part[:w.npart]) {
			return n, nil // still cut: wait for more
		}
		w.buf.B = encode.AppendStringContent(w.buf.B, bytesconv.B2S(w.part[:w.npart]))
		w.npart = 0
	}
	s = w.holdCut(s)
	for len(s) > 0 {
		k := min(len(s), streamChunk)
		if k < len(s) { // never cut a UTF-8 sequence between two pieces
			for k > len(s)-utf8.UTFMax && k > 0 && !utf8.RuneStart(s[k]) {
				k--
			}
			if k == 0 {
				k = min(len(s), streamChunk)
			}
		}
		w.buf.B = encode.AppendStringContent(w.buf.B, s[:k])
		s = s[k:]
		if err := w.maybeFlush(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// holdCut keeps an incomplete UTF-8 sequence at the end of s for the next
// Write and returns the rest.
func (w *ResultWriter) holdCut(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax+1; i-- {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		if s[i] >= utf8.RuneSelf && !utf8.FullRuneInString(s[i:]) {
			w.npart = copy(w.part[:], s[i:])
			return s[:i]
		}
		break
	}
	return s
}

// EndString closes the open string.
func (w *ResultWriter) EndString() error {
	if w.err != nil {
		return w.err
	}
	if !w.inStr {
		return w.fail(ErrResultMisuse)
	}
	if w.npart > 0 { // a sequence never completed: invalid UTF-8
		w.buf.B = encode.AppendStringContent(w.buf.B, bytesconv.B2S(w.part[:w.npart]))
		w.npart = 0
	}
	w.buf.B = append(w.buf.B, '"')
	w.inStr = false
	w.after()
	return w.maybeFlush()
}

// Value writes raw, which must be one whole valid JSON value (checked as
// a returned result is; ErrResultValue otherwise), as the next value.
func (w *ResultWriter) Value(raw []byte) error {
	if err := w.before(); err != nil {
		return err
	}
	if !decode.Valid(raw, resultDepth-len(w.stack)) {
		return w.fail(ErrResultValue)
	}
	for len(raw) > 0 {
		k := min(len(raw), streamChunk)
		w.buf.B = append(w.buf.B, raw[:k]...)
		raw = raw[k:]
		if err := w.maybeFlush(); err != nil {
			return err
		}
	}
	w.after()
	return nil
}

// Flush sends what is written so far now, where the result goes out in
// pieces (see StreamResult); elsewhere it does nothing. The engine sends
// pieces of about 64 KiB by itself: Flush is for a result produced slowly
// whose client wants each piece soon.
func (w *ResultWriter) Flush() error {
	if w.err != nil || w.sink == nil {
		return w.err
	}
	return w.flush()
}

// open opens a container of kind c.
func (w *ResultWriter) open(c byte) error {
	if err := w.before(); err != nil {
		return err
	}
	if len(w.stack) >= resultDepth-1 {
		return w.fail(ErrResultMisuse)
	}
	w.stack = append(w.stack, c)
	w.buf.B = append(w.buf.B, c)
	w.comma, w.wantVal = false, false
	return nil
}

// close closes the innermost container, which must be of kind c, with end.
func (w *ResultWriter) close(c, end byte) error {
	if w.err != nil {
		return w.err
	}
	if w.inStr || len(w.stack) == 0 || w.stack[len(w.stack)-1] != c || w.wantVal {
		return w.fail(ErrResultMisuse)
	}
	w.stack = w.stack[:len(w.stack)-1]
	w.buf.B = append(w.buf.B, end)
	w.after()
	return w.maybeFlush()
}

// before readies the writer for a value: a comma in an array, nothing
// after a key; it fails where no value may come.
func (w *ResultWriter) before() error {
	switch {
	case w.err != nil:
		return w.err
	case w.inStr:
		return w.fail(ErrResultMisuse)
	case len(w.stack) == 0:
		if w.complete {
			return w.fail(ErrResultMisuse)
		}
	case w.stack[len(w.stack)-1] == '{':
		if !w.wantVal {
			return w.fail(ErrResultMisuse)
		}
		w.wantVal = false
	case w.comma:
		w.buf.B = append(w.buf.B, ',')
	}
	return nil
}

// after records a value written.
func (w *ResultWriter) after() {
	if len(w.stack) == 0 {
		w.complete = true
		return
	}
	w.comma = true
}

// fail records err as the writer's sticky error and returns it.
func (w *ResultWriter) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return w.err
}

// maybeFlush sends a piece once the buffer holds streamChunk bytes, or
// fails once a held result is over its bound.
func (w *ResultWriter) maybeFlush() error {
	if w.sink == nil {
		if len(w.buf.B) > w.max {
			w.dropBuffer()
			return w.fail(ErrResponseTooLarge)
		}
		return nil
	}
	if len(w.buf.B) < streamChunk {
		return nil
	}
	return w.flush()
}

// flush hands the buffer to the sink.
func (w *ResultWriter) flush() error {
	if w.closed {
		return w.fail(ErrResultMisuse)
	}
	if err := w.call.Err(); err != nil { // timed out, or the client went away
		return w.fail(err)
	}
	if err := w.sink.Piece(w.buf.B, !w.started); err != nil {
		w.started = true
		return w.fail(err)
	}
	w.started = true
	w.buf.B = w.buf.B[:0]
	return nil
}

// dropBuffer gives the buffer back (a held result over its bound).
func (w *ResultWriter) dropBuffer() {
	b := w.buf
	w.buf = &pool.Buffer{}
	if cap(b.B) <= streamChunk*8 {
		pool.PutBuffer(b)
	}
}

// result returns the result held in the buffer, when no piece went out.
func (w *ResultWriter) result() []byte { return w.buf.B[w.hdr:] }

// release ends the writer's use: every later call fails.
func (w *ResultWriter) release() {
	w.closed = true
	w.fail(ErrResultMisuse)
	w.dropBuffer()
}

// ok reports whether the handler left one complete value and no error.
func (w *ResultWriter) ok() bool {
	return w.err == nil && w.complete && !w.inStr && len(w.stack) == 0
}

// endWritten answers a call whose handler took its ResultWriter w: out
// and err are what the handler returned, replied whether it answered with
// Peer.Reply; dst[start:mark] holds the response's head.
func (e *Engine) endWritten(w *ResultWriter, dst []byte, start, mark int, id, out []byte, err error, replied bool) []byte {
	md := w.md
	good := err == nil && !replied && len(out) == 0 && w.ok()
	if w.started {
		if good {
			w.buf.B = encode.AppendResultEnd(w.buf.B)
			w.sink.End(w.buf.B, true)
		} else {
			e.log.Error("jetrpc: handler failed after its streamed result began; the response is cut off",
				"method", md.name, "err", errors.Join(err, w.err))
			w.sink.End(nil, false)
		}
		w.release()
		return dst[:start]
	}
	defer w.release()
	switch {
	case replied:
		return dst[:start]
	case w.err == ErrResponseTooLarge:
		return e.appendRespTooLarge(dst[:start], id)
	case err != nil:
		return e.appendHandlerError(dst[:start], id, err)
	case !good:
		e.logBadResult(md, w.result())
		return encode.AppendErrorValue(dst[:start], id, e.errResult)
	}
	dst = append(dst[:mark], w.result()...)
	if len(dst)-start >= e.maxResp {
		return e.appendRespTooLarge(dst[:start], id)
	}
	return encode.AppendResultEnd(dst)
}
