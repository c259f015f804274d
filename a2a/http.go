package a2a

// NOTE: the HTTP endpoint. A POST is one JSON-RPC message or batch for the
// engine of the wire its A2A-Version header names. A streaming call leaves
// a streamPlan in its reqState; its response is then an SSE stream of the
// task's events, each "id: N" and "data: " a JSON-RPC response with the
// call's id, until the event that ends the stream, the server's close or
// a failed write.

import (
	"bufio"
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/httpz/fasthttpz"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/valyala/fasthttp"
)

// keepAlive is how long a quiet stream waits before a comment line.
const keepAlive = 15 * time.Second

// wireOf maps an A2A-Version header to a wire.
func wireOf(v []byte) (Wire, bool) {
	switch strings.TrimSpace(string(v)) {
	case "", "0.3", "0.3.0":
		return V03, true
	case "1.0", "1", "1.0.0":
		return V10, true
	}
	return 0, false
}

// ServeFastHTTP serves the JSON-RPC endpoint (POST).
func (s *Server) ServeFastHTTP(ctx *fasthttp.RequestCtx) {
	if !ctx.IsPost() {
		ctx.Response.Header.Set("Allow", "POST")
		ctx.SetStatusCode(fasthttp.StatusMethodNotAllowed)
		return
	}
	body := ctx.PostBody()
	v := ctx.Request.Header.Peek("A2A-Version")
	w, ok := wireOf(v)
	if !ok {
		ctx.SetContentType("application/json")
		ctx.SetBody(encode.AppendError(nil, requestID(body), CodeVersionNotSupported,
			"Version not supported: "+string(v)+" (supported: 1.0, 0.3)",
			errorInfo("VERSION_NOT_SUPPORTED", map[string]string{"version": string(v), "supported": "1.0,0.3"})))
		return
	}
	rs := &reqState{w: w, url: endpointURL(ctx), authed: nethttp.RequestIdentity(ctx) != nil}
	for i := 0; i < len(body); i++ {
		if c := body[i]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			rs.batch = c == '['
			break
		}
	}
	ext := "A2A-Extensions"
	if w == V03 {
		ext = "X-A2A-Extensions"
	}
	rs.extensions = string(ctx.Request.Header.Peek(ext))
	if le := ctx.Request.Header.Peek("Last-Event-ID"); le != nil {
		rs.lastEventID, rs.hasLast = string(le), true
	}
	if w == V10 {
		ctx.Response.Header.Set("A2A-Version", "1.0")
	}
	out := s.eng[w].ProcessContext(context.WithValue(ctx, stateKey{}, rs), nil, body)
	if p := rs.plan; p != nil {
		s.serveStream(ctx, w, p)
		return
	}
	if len(out) == 0 {
		ctx.SetStatusCode(fasthttp.StatusNoContent)
		return
	}
	if rs.streaming && !rs.batch { // a streaming call that failed: its error is the stream's one event
		ctx.SetContentType("text/event-stream")
		ctx.Response.Header.Set("Cache-Control", "no-cache")
		ctx.SetBody(append(append([]byte("data: "), out...), "\n\n"...))
		return
	}
	ctx.SetContentType("application/json")
	ctx.SetBody(out)
}

// requestID returns the id of a single message, or null.
func requestID(body []byte) []byte {
	var it decode.Iter
	if !it.Reset(body) || !it.IsObject() {
		return []byte("null")
	}
	for it.Next() {
		if string(it.Key()) == "id" {
			if v := it.Value(); len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
				return v
			}
		}
	}
	return []byte("null")
}

// endpointURL is this endpoint's URL as the request reached it.
func endpointURL(ctx *fasthttp.RequestCtx) string {
	scheme := "http"
	if ctx.IsTLS() {
		scheme = "https"
	}
	return scheme + "://" + string(ctx.Host()) + "/a2a"
}

func (s *Server) serveStream(ctx *fasthttp.RequestCtx, w Wire, p *streamPlan) {
	ctx.SetContentType("text/event-stream")
	ctx.Response.Header.Set("Cache-Control", "no-cache")
	ctx.Response.Header.Set("X-Accel-Buffering", "no")
	fasthttpz.SetStream(ctx, func(bw *bufio.Writer) {
		defer p.t.detach(p.sb)
		if p.stop != nil {
			defer p.stop()
		}
		var evs []stored
		var line []byte
		timer := time.NewTimer(keepAlive)
		defer timer.Stop()
		for first := true; ; first = false {
			evs = p.sb.take(evs[:0])
			done := false
			for i := range evs {
				line = appendSSE(line[:0], p.id, &evs[i], w)
				bw.Write(line)
				done = done || evs[i].final
			}
			// the headers go at once even when no event is ready (a
			// follow of another replica's task): fasthttp sends them with
			// the first bytes, here a comment line
			if first && len(evs) == 0 && !p.drain {
				bw.WriteString(": open\n\n")
			}
			if len(evs) > 0 || done || first {
				if bw.Flush() != nil || done {
					return
				}
			}
			if p.drain && len(evs) == 0 {
				return
			}
			if p.drain {
				continue
			}
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
			timer.Reset(keepAlive)
			select {
			case <-p.sb.wake:
			case <-p.done: // the follow ended: what it queued, then the end
				p.drain = true
			case <-s.ctx.Done():
				return
			case <-timer.C:
				if _, err := bw.WriteString(": keep-alive\n\n"); err != nil || bw.Flush() != nil {
					return
				}
			}
		}
	})
}

// appendSSE renders one event: its id and the JSON-RPC response.
func appendSSE(b, id []byte, ev *stored, w Wire) []byte {
	b = append(b, "id: "...)
	b = strconv.AppendUint(b, ev.seq, 10)
	b = append(b, "\ndata: "...)
	b = encode.AppendResult(b, id, ev.wire(w))
	return append(b, "\n\n"...)
}

// ServeCard serves the agent card (GET and HEAD) with this endpoint's
// URL in it.
func (s *Server) ServeCard(ctx *fasthttp.RequestCtx) {
	if !ctx.IsGet() && !ctx.IsHead() {
		ctx.Response.Header.Set("Allow", "GET, HEAD")
		ctx.SetStatusCode(fasthttp.StatusMethodNotAllowed)
		return
	}
	ctx.SetContentType("application/json")
	ctx.Response.Header.Set("Cache-Control", "public, max-age=60")
	ctx.SetBody(s.card.document(endpointURL(ctx), false, s.security.Load()))
}

// Card returns the card document with url as the JSON-RPC endpoint.
func (s *Server) Card(url string) []byte { return s.card.document(url, false, s.security.Load()) }
