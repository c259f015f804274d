package netserver

// NOTE: streaming HTTP responses (Server-Sent Events). A POST whose Accept
// header includes text/event-stream is processed with Engine.ProcessStream
// on its own goroutine, under a context whose Peer (one-way) turns the
// handlers' notifications into events too. Each response and each
// notification becomes one event as soon as it is ready. The request's
// handler waits for the first event: when processing ends without one (only
// notifications), the answer is 204 as for a plain POST; otherwise it
// answers 200 text/event-stream and fasthttp's stream writer goroutine
// writes the events as they come, until processing has ended and every
// event is written. Producers wait while MaxPending bytes of events are
// unwritten; each write must make progress within WriteTimeout; a write that
// fails cancels the handlers' context, and later events are dropped.

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
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

// sseStream holds the events of one SSE response until they are written.
type sseStream struct {
	max int

	mu    sync.Mutex
	cond  sync.Cond
	buf   []byte        // events not yet taken by the writer
	first bool          // an event was produced
	done  bool          // processing ended: nothing more comes
	dead  bool          // the writer failed: drop what comes
	wake  chan struct{} // capacity 1: events or the end are there
}

// appendEvent appends msg as one event: a "data:" line per line of msg (a
// handler's raw result may hold newlines), then a blank line.
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

// put queues msg as an event, waiting while the stream is at its bound.
func (st *sseStream) put(ctx context.Context, msg []byte) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	for !st.dead && !st.done && len(st.buf) >= st.max {
		if err := ctx.Err(); err != nil {
			return err
		}
		st.cond.Wait()
	}
	if st.dead || st.done {
		return dispatch.ErrPeerClosed
	}
	st.buf = appendEvent(st.buf, msg)
	st.first = true
	st.cond.Broadcast()
	st.signal()
	return nil
}

// finish marks the end of processing.
func (st *sseStream) finish() {
	st.mu.Lock()
	st.done = true
	st.cond.Broadcast()
	st.mu.Unlock()
	st.signal()
}

// started waits for the first event or the end of processing and reports
// whether there is an event to stream.
func (st *sseStream) started() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	for !st.first && !st.done {
		st.cond.Wait()
	}
	return st.first
}

// take returns the events queued (swapping in spare) and whether the
// stream is over once they are written.
func (st *sseStream) take(spare []byte) (b []byte, over bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	b = st.buf
	st.buf = spare[:0]
	st.cond.Broadcast()
	return b, st.done && len(b) == 0
}

// signal wakes the writer (st.mu held or not).
func (st *sseStream) signal() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

func (st *sseStream) fail() {
	st.mu.Lock()
	st.dead = true
	st.buf = nil
	st.cond.Broadcast()
	st.mu.Unlock()
}

// startSSE processes msg (which it keeps) on a goroutine of its own, under
// a context carrying a one-way peer, and waits for the first event. It
// returns nil when processing ended without one (no response due); else the
// caller must stream the events with writeEvents and then call done.
func startSSE(e *dispatch.Engine, parent context.Context, msg []byte, max int) (st *sseStream, done func()) {
	st = &sseStream{max: max, wake: make(chan struct{}, 1)}
	st.cond.L = &st.mu
	ctx, cancel := context.WithCancel(parent)
	peer := dispatch.NewPeer(st.put, true)
	go func() {
		e.ProcessStream(dispatch.WithPeer(ctx, peer), msg, func(resp []byte) {
			_ = st.put(ctx, resp) // fails only once the stream is dead
		})
		peer.Close()
		st.finish()
	}()
	if !st.started() {
		cancel()
		return nil, nil
	}
	return st, cancel
}

// sseKeepAlive is how long a stream may go without an event before a
// comment line is written: it keeps proxies from timing the stream out, and
// a client that went away is noticed when the write fails (the handlers are
// then cancelled). A variable for tests.
var sseKeepAlive = 15 * time.Second

var keepAlive = []byte(": keep-alive\n\n")

// writeEvents writes the events as they come until the stream is over:
// before each write it calls arm (the write deadline), after it flush. A
// failed write kills the stream (later events are dropped).
func (st *sseStream) writeEvents(w io.Writer, arm func(), flush func() error) {
	tick := time.NewTicker(sseKeepAlive)
	defer tick.Stop()
	var spare []byte
	for {
		b, over := st.take(spare)
		switch {
		case over:
			return
		case len(b) == 0:
			select {
			case <-st.wake:
				continue
			case <-tick.C:
				b = keepAlive
			}
		default:
			spare = b
		}
		arm()
		if _, err := w.Write(b); err != nil || flush() != nil {
			st.fail()
			return
		}
		tick.Reset(sseKeepAlive)
	}
}

// serveSSE answers a POST that asked for an event stream.
func (s *HTTPServer) serveSSE(ctx *fasthttp.RequestCtx, body []byte) {
	// The body is copied: on a broken stream processing may outlive ctx.
	st, done := startSSE(s.e, s.ctx, bytes.Clone(body), s.wsc.maxPending)
	if st == nil {
		ctx.SetStatusCode(fasthttp.StatusNoContent)
		return
	}
	ctx.Response.Header.SetContentTypeBytes(sseContentType)
	ctx.Response.Header.SetBytesV(fasthttp.HeaderCacheControl, noCache)
	conn, wt := ctx.Conn(), s.wsc.writeTimeout
	arm := func() {
		if wt > 0 {
			conn.SetWriteDeadline(time.Now().Add(wt))
		}
	}
	ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		defer done()
		st.writeEvents(w, arm, w.Flush)
	})
}

// serveSSE is the net/http adapter's event stream. The handlers' context
// derives from the request's, so a client that goes away cancels them.
func (h *stdHandler) serveSSE(w http.ResponseWriter, r *http.Request, msg []byte) {
	st, done := startSSE(h.e, r.Context(), bytes.Clone(msg), h.maxPending)
	if st == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	defer done()
	w.Header().Set("Content-Type", string(sseContentType))
	w.Header().Set("Cache-Control", string(noCache))
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	st.writeEvents(w, func() {}, rc.Flush)
}
