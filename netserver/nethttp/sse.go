package nethttp

// NOTE: streaming HTTP responses (Server-Sent Events), on the connection
// core. A POST whose Accept header includes text/event-stream is processed
// with ProcessStream on its own goroutine, under a Conn whose one-way Peer
// turns the handlers' notifications into events too. Each response and each
// notification becomes one "data:" event (begin and end frame it) as soon as
// it is ready. The core holds the events until the response can be written:
// the request's handler waits for the first event; when processing ends
// without one (only notifications), the answer is 204 as for a plain POST;
// otherwise it answers 200 text/event-stream and, on the goroutine that
// writes the response (fasthttp's stream writer, or the net/http handler's),
// releases the events, which producers then write as they come, until
// processing has ended and every event is written. Producers wait while
// MaxPending bytes are unwritten; each write must make progress within
// WriteTimeout; a write that fails cancels the handlers, and later events
// are dropped. When the request's Accept-Encoding allows, the stream is
// gzip- or deflate-coded and flushed through the compressor per write.

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/jetrpc/jetrpc/internal/httpz"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/internal/seam"
	"github.com/valyala/fasthttp"
)

var (
	sseContentType = []byte("text/event-stream")
	noCache        = []byte("no-cache")
)

// hasEventStream reports whether an Accept header value includes
// text/event-stream (ASCII case-insensitive).
func hasEventStream[T string | []byte](accept T) bool {
	const want = "text/event-stream"
outer:
	for i := 0; i+len(want) <= len(accept); i++ {
		for j := 0; j < len(want); j++ {
			if c := accept[i+j]; c != want[j] && c|0x20 != want[j] {
				continue outer
			}
		}
		return true
	}
	return false
}

// sseKeepAlive is how long a stream may go without an event before a
// comment line is written: it keeps proxies from timing the stream out, and
// a client that went away is noticed when the write fails (the handlers are
// then cancelled). A variable for tests.
var sseKeepAlive = 15 * time.Second

var keepAlive = []byte(": keep-alive\n\n")

// appendEvent appends msg as one event: a "data:" line per line of msg,
// then a blank line.
func appendEvent(dst, msg []byte) []byte {
	for {
		dst = append(dst, "data: "...)
		i := bytes.IndexAny(msg, "\r\n")
		if i < 0 {
			dst = append(dst, msg...)
			return append(dst, "\n\n"...)
		}
		dst = append(append(dst, msg[:i]...), '\n')
		if msg[i] == '\r' && i+1 < len(msg) && msg[i+1] == '\n' {
			i++
		}
		msg = msg[i+1:]
	}
}

// sseConn is one event stream.
type sseConn struct {
	core  seam.Core
	lim   *limits
	w     io.Writer    // set when the stream starts
	flush func() error // after each write
	arm   func()       // before each write: the write deadline

	started   bool          // an event was queued (under the core's lock)
	first     chan struct{} // closed with the first event
	processed chan struct{} // closed when processing ended
}

// startSSE processes msg (which it keeps) on a goroutine of its own and
// waits for the first event. It returns nil when processing ended without
// one (no response due); else the caller must stream the events.
func startSSE(lim *limits, parent context.Context, msg []byte) *sseConn {
	c := &sseConn{lim: lim, first: make(chan struct{}), processed: make(chan struct{})}
	c.core = lim.host.NewCore(c, nil, parent, uint8(netserver.SSE), true, true, nil)
	go func() {
		ctx := c.core.Context()
		c.core.ProcessStream(msg, func(resp []byte) {
			_ = c.core.Send(ctx, resp) // fails only once the stream is dead
		})
		close(c.processed)
	}()
	select {
	case <-c.first:
		lim.observe(netserver.SSE, netserver.ConnOpened)
		return c
	case <-c.processed:
	}
	select {
	case <-c.first:
		lim.observe(netserver.SSE, netserver.ConnOpened)
		return c
	default:
	}
	c.core.Finish()
	c.core.Release()
	return nil
}

func (c *sseConn) Begin(b []byte) ([]byte, int) { return append(b, "data: "...), len(b) }

// end completes the event begun at mark: a "data:" line per line of the
// message (a handler's raw result may hold newlines), then a blank line.
func (c *sseConn) End(b []byte, mark int) []byte {
	if !c.started { // the core's lock is held: events are queued by send only
		c.started = true
		close(c.first)
	}
	msg := b[mark+len("data: "):]
	if bytes.IndexAny(msg, "\r\n") < 0 {
		return append(b, "\n\n"...)
	}
	return appendEvent(b[:mark], bytes.Clone(msg))
}

func (c *sseConn) Write(b []byte) error {
	c.arm()
	if _, err := c.w.Write(b); err != nil {
		return err
	}
	return c.flush()
}

func (c *sseConn) Interrupt() {}
func (c *sseConn) Drop()      {}

// stream writes the events to w until processing has ended and every event
// is written: before each write it calls arm (the write deadline), after it
// flush. It writes a keep-alive comment when the stream has been silent for
// sseKeepAlive. With enc other than Identity, the stream is compressed and
// each write flushed through the compressor (a sync flush), so that each
// event can be decoded as soon as it arrives.
func (c *sseConn) stream(w io.Writer, arm func(), flush func() error, enc httpz.Encoding) {
	if enc != httpz.Identity {
		z, out := httpz.NewWriter(enc, w), flush
		defer func() { // every write is done: end the stream
			arm()
			if z.Close() == nil {
				_ = out()
			}
		}()
		w, flush = z, func() error {
			if err := z.Flush(); err != nil {
				return err
			}
			return out()
		}
	}
	c.w, c.arm, c.flush = w, arm, flush // nothing is written while held
	c.core.Unhold()
	tick := time.NewTicker(sseKeepAlive)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-c.processed:
			done = true
		case <-tick.C:
			if c.core.IdleFor(sseKeepAlive) {
				c.core.QueueRaw(keepAlive, false)
			}
		}
	}
	c.core.Drain(true, 0)
	c.core.Finish()
	lim := c.lim
	c.core.Release()
	lim.observe(netserver.SSE, netserver.ConnClosed)
}

// serveSSE answers a POST that asked for an event stream.
func (s *HTTPServer) serveSSE(ctx *fasthttp.RequestCtx, body []byte) {
	// The body is copied: on a broken stream processing may outlive ctx.
	c := startSSE(&s.lim, s.requestContext(ctx, netserver.SSE, true), bytes.Clone(body))
	if c == nil {
		ctx.SetStatusCode(fasthttp.StatusNoContent)
		return
	}
	ctx.Response.Header.SetContentTypeBytes(sseContentType)
	ctx.Response.Header.SetBytesV(fasthttp.HeaderCacheControl, noCache)
	enc := s.z.encoding(ctx, math.MaxInt) // a stream: compressed if it may be (compress.go)
	if enc != httpz.Identity {
		ctx.Response.Header.SetContentEncodingBytes(encNames[enc])
	}
	conn, wt := ctx.Conn(), s.lim.writeTimeout
	arm := func() {
		if wt > 0 {
			conn.SetWriteDeadline(time.Now().Add(wt))
		}
	}
	ctx.SetBodyStreamWriter(func(w *bufio.Writer) { c.stream(w, arm, w.Flush, enc) })
}

// serveSSE is the net/http adapter's event stream. The handlers' context
// derives from the request's, so a client that goes away cancels them.
func (h *stdHandler) serveSSE(w http.ResponseWriter, r *http.Request, msg []byte) {
	c := startSSE(&h.lim, stdRequestContext(r, netserver.SSE), bytes.Clone(msg))
	if c == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", string(sseContentType))
	w.Header().Set("Cache-Control", string(noCache))
	enc := h.z.stdEncoding(w, r, math.MaxInt) // a stream: compressed if it may be (compress.go)
	w.WriteHeader(http.StatusOK)
	c.stream(w, func() {}, http.NewResponseController(w).Flush, enc)
}
