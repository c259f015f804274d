package client

// NOTE: CallTo on an NDJSON stream and over WebSocket (HTTP is in
// http_callto.go). A response line (a WebSocket message, through
// ws.Reader.SetDivert, the same way) over MaxMessage is
// offered to the stream's divert (frame.Reader.SetDivert) instead of being
// skipped: when its head reads {"jsonrpc":"2.0","id":N,"result": (members
// in any order, result last, as jetrpc and go-ethereum write them) and N
// is a CallTo call's, the call is taken from the pending table and the
// line goes to its resultSink, which writes the result to the caller's
// io.Writer as it is read, on the reader goroutine, holding back the
// line's last bytes (the response's closing brace). Answers to the other
// calls come on the same connection after that line. A result within
// MaxMessage arrives as for CallRaw and is written to w by CallTo.
// divertResult is what both transports' diverts ask.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/pending"
)

// ErrResultCut: the connection ended in the middle of a result CallTo was
// streaming into its writer (what was written is incomplete).
var ErrResultCut = errors.New("client: streamed result cut off")

// CallTo calls method with params (raw JSON, as for CallRaw) and writes
// the result's raw JSON to w. A result of any size is written to w as it
// arrives, without a MaxMessage cap of its own and without holding it:
// on an NDJSON stream (Dial, NewConn, NewStdio with the default framing)
// and over WebSocket (a message over MaxMessage, fragment by fragment;
// the connection's other messages come after it), and over HTTP (the
// body as it arrives, gzip-inflated on the fly; the POST runs on the
// caller's goroutine). A compressed WebSocket message is the exception:
// it is inflated whole, within MaxMessage. Other framings hold the result
// as CallRaw does (up to MaxMessage) and then write it.
//
// The response must open with {"jsonrpc":"2.0","id":N,"result": (as
// jetrpc and go-ethereum write it); any other is read as for CallRaw. A
// JSON-RPC error response is an *encode.Error and nothing is written; an
// error of w's fails the call (on a stream the rest of the result is read
// and dropped); a connection or body that ends mid-result returns
// ErrResultCut after the part that came was written. w is used only
// during the call. CallTo is not retried or hedged.
func (c *Client) CallTo(ctx context.Context, w io.Writer, method string, params []byte) error {
	if err := checkParams(params); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p := c.getCall()
	p.Dst = p.buf[:0]
	if t, ok := c.t.(*httpTransport); ok {
		err := t.callTo(ctx, p, w, method, params)
		putCall(p)
		return err
	}
	rs := &resultSink{w: w}
	c.sinks.Store(p.id, rs)
	err := c.do(ctx, p, method, params, nil)
	c.sinks.Delete(p.id)
	switch {
	case err != nil:
	case p.Err != nil:
		err = p.Err
	case rs.streamed:
		err = rs.err
	default:
		_, err = w.Write(p.Res)
	}
	p.buf = p.Res[:0]
	putCall(p)
	return err
}

// divert is the stream's frame.Reader divert: the sink for a line over
// MaxMessage that answers one of CallTo's calls, else nil.
func (s *stream) divert(head []byte) frame.LineSink {
	if s.c == nil {
		return nil
	}
	if rs := s.c.divertResult(head); rs != nil {
		return rs
	}
	return nil
}

// divertResult returns the sink of the CallTo call that a message over
// MaxMessage starting with head answers, taken from the pending table, or
// nil.
func (c *Client) divertResult(head []byte) *resultSink {
	id, start, ok := resultHead(head)
	if !ok {
		return nil
	}
	v, ok := c.sinks.Load(id)
	if !ok {
		return nil
	}
	p := c.calls.Take(id)
	if p == nil { // abandoned meanwhile
		return nil
	}
	rs := v.(*resultSink)
	rs.p, rs.skip, rs.streamed = p, start, true
	return rs
}

// resultSink writes a diverted line's result to a CallTo caller's writer.
type resultSink struct {
	w        io.Writer
	p        *pending.Call
	skip     int    // bytes of the head still to drop
	tail     []byte // the last bytes seen, held back
	err      error  // w's
	streamed bool
}

// tailKeep is how many of the last bytes are held back: the closing brace
// and whitespace around it.
const tailKeep = 64

func (r *resultSink) Write(p []byte) {
	if r.skip > 0 {
		n := min(r.skip, len(p))
		p, r.skip = p[n:], r.skip-n
	}
	if len(p) >= tailKeep { // the common case: a piece of a large line
		r.write(r.tail)
		r.write(p[:len(p)-tailKeep])
		r.tail = append(r.tail[:0], p[len(p)-tailKeep:]...)
		return
	}
	r.tail = append(r.tail, p...)
	if n := len(r.tail) - tailKeep; n > 0 {
		r.write(r.tail[:n])
		r.tail = append(r.tail[:0], r.tail[n:]...)
	}
}

func (r *resultSink) write(b []byte) {
	if r.err == nil {
		_, r.err = r.w.Write(b)
	}
}

// End completes the call: the result's last bytes without the closing
// brace, or ErrResultCut.
func (r *resultSink) End(complete bool) {
	if err := r.finish(complete); err != nil {
		r.p.Fail(err)
		return
	}
	r.p.Resolve(nil)
}

// finish writes the result's last bytes, without the closing brace, or,
// when the response was not complete, what came and returns ErrResultCut.
func (r *resultSink) finish(complete bool) error {
	t := bytes.TrimRight(r.tail, " \t\r\n")
	if !complete || len(t) == 0 || t[len(t)-1] != '}' {
		r.write(r.tail)
		return ErrResultCut
	}
	r.write(bytes.TrimRight(t[:len(t)-1], " \t\r\n"))
	return nil
}

// resultHead reads the head of a response line: the members before
// "result" must be "jsonrpc" and "id" (a number, the client's kind of id).
// It returns the id and where the result's value begins.
func resultHead(b []byte) (id uint64, start int, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, 0, false
	}
	i++
	gotID := false
	for range 3 {
		i = skipWS(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
		}
		key, n := headString(b, i)
		if n < 0 {
			return 0, 0, false
		}
		i = skipWS(b, n)
		if i >= len(b) || b[i] != ':' {
			return 0, 0, false
		}
		i = skipWS(b, i+1)
		switch key {
		case "result":
			return id, i, gotID
		case "jsonrpc":
			v, n := headString(b, i)
			if n < 0 || v != "2.0" {
				return 0, 0, false
			}
			i = n
		case "id":
			j := i
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				j++
			}
			v, err := strconv.ParseUint(string(b[i:j]), 10, 64)
			if err != nil {
				return 0, 0, false
			}
			id, gotID, i = v, true, j
		default:
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// headString reads a plain string (no escapes) at b[i]: its text and the
// index after it, or n < 0.
func headString(b []byte, i int) (string, int) {
	if i >= len(b) || b[i] != '"' {
		return "", -1
	}
	j := bytes.IndexByte(b[i+1:], '"')
	if j < 0 || bytes.IndexByte(b[i+1:i+1+j], '\\') >= 0 {
		return "", -1
	}
	return string(b[i+1 : i+1+j]), i + j + 2
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
