package client

// NOTE: CallTo over HTTP. The call is registered as any other, but its
// POST runs on the caller's goroutine through httpc.PostStream, which
// hands over the answer's body as it arrives (inflated on the fly when
// gzip-coded). When the body opens with {"jsonrpc":"2.0","id":N,"result":
// (N the call's id), the call is taken from the pending table and the rest
// goes to a resultSink (callto.go), which writes it to the caller's
// writer, holding back the closing brace; no limit applies. Anything else
// (another status, an error response, a head in another order) is read as
// a normal reply, held to MaxMessage, and delivered as for CallRaw.

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/httpc"
)

// headMax is how much of a body CallTo reads to find the response's head
// before it takes the body as a normal reply.
const headMax = 512

// copyBufs holds CallTo's read buffers over HTTP.
var copyBufs = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// callTo is CallTo over HTTP: p is fresh, its Dst set; on return nobody
// else touches it.
func (t *httpTransport) callTo(ctx context.Context, p *call, w io.Writer, method string, params []byte) error {
	c := t.c
	m, err := t.begin(ctx)
	if err != nil {
		return err
	}
	if err := c.register(p); err != nil {
		t.abort(m)
		return err
	}
	m.b = encode.AppendRequest(m.b, p.idBytes(), method, params)
	m.b = c.traceMessage(ctx, m.b)
	if len(m.b) > t.max {
		t.putBuf(m)
		c.settle(p)
		return ErrTooLarge
	}
	r := t.getResponse()
	r.hdr = c.appendTraceHeaders(ctx, r.hdr[:0])
	streamed := false
	if r.hdr, err = c.appendAuthHeader(ctx, r.hdr); err == nil {
		err = t.hc.PostStream(ctx, r.hdr, m.b, func(status int, body io.Reader) error {
			var e error
			streamed, e = t.readTo(p, w, status, body, &r.Response)
			return e
		})
	}
	t.putResponse(r)
	t.putBuf(m)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		err = ctx.Err()
	case errors.Is(err, httpc.ErrTimeout):
		err = context.DeadlineExceeded
	case errors.Is(err, httpc.ErrClosed):
		err = ErrClosed
	}
	if streamed {
		return err // p was taken from the table
	}
	if err != nil {
		t.finish(p.ids[:], err)
	}
	c.calls.Wait(context.Background(), p.id, &p.Call) // completed: by reply or finish, or by Close
	if p.Err != nil {
		return p.Err
	}
	_, err = w.Write(p.Res)
	p.buf = p.Res[:0]
	return err
}

// readTo reads the answer to p: a result streamed to w (streamed, then p
// is taken from the pending table and the error is the call's), or a
// reply read into resp and delivered.
func (t *httpTransport) readTo(p *call, w io.Writer, status int, body io.Reader, resp *httpc.Response) (streamed bool, err error) {
	b := resp.Body[:0]
	if cap(b) < headMax {
		b = make([]byte, 0, headMax)
	}
	var rerr error
	for status == 200 && rerr == nil && len(b) < headMax {
		var n int
		n, rerr = body.Read(b[len(b):headMax])
		b = b[:len(b)+n]
		id, start, ok := resultHead(b)
		if !ok {
			continue
		}
		if id != p.id || t.c.calls.Take(p.id) == nil {
			break // not ours (a reply answers it), or Close failed it
		}
		return true, t.streamTo(w, b[start:], body, rerr)
	}
	resp.StatusCode = status
	if rerr == nil {
		b, rerr = readAll(b, body, t.max)
	}
	resp.Body = b
	if rerr != nil && rerr != io.EOF {
		return false, rerr
	}
	return false, t.reply(resp, p.ids[:])
}

// streamTo writes a result to w: first the bytes in b, then what body
// yields (rerr is the error of the read that gave b).
func (t *httpTransport) streamTo(w io.Writer, b []byte, body io.Reader, rerr error) error {
	rs := resultSink{w: w}
	rs.Write(b)
	if rerr == nil {
		buf := copyBufs.Get().(*[32 << 10]byte)
		defer copyBufs.Put(buf)
		for rerr == nil && rs.err == nil {
			var n int
			n, rerr = body.Read(buf[:])
			rs.Write(buf[:n])
		}
	}
	if rs.err != nil {
		return rs.err
	}
	if err := rs.finish(rerr == io.EOF); err != nil {
		if rs.err != nil {
			return rs.err
		}
		return err
	}
	return rs.err
}

// readAll appends what r yields to b, up to max bytes in all.
func readAll(b []byte, r io.Reader, max int) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			if len(b) > max {
				return b, httpc.ErrBodyTooLarge
			}
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if len(b) > max {
			return b, httpc.ErrBodyTooLarge
		}
		if err != nil {
			return b, err
		}
	}
}
