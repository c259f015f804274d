package nethttp

// NOTE: streamed results (dispatch.StreamResult) over HTTP, sent with
// chunked transfer encoding as they are produced.
//
//   - fasthttp writes a response only after its handler returned, so its
//     connections offer an httpStream, an engineconn.Detacher: a call of
//     a dispatch.Method with Streams runs on a goroutine of its own, and
//     once its first piece comes the handler returns with the body a pipe
//     that fasthttp reads and writes in chunks (Started). A call that
//     ends before its first piece is answered as usual. Other handlers
//     that take a ResultWriter are held (up to MaxResponse), since they
//     run on the handler's goroutine. A request served through Handler
//     in a fasthttp server of one's own holds its results too.
//   - The net/http adapter writes the pieces itself, from the handler's
//     goroutine (stdStream), flushing each.
//
// A result that cannot be completed (its handler failed after pieces went
// out) ends the body without its last chunk, so that no client takes it
// for a whole answer: the pipe fails (fasthttp then closes the connection
// without the terminating chunk), or the net/http handler panics with
// http.ErrAbortHandler. A client that goes away fails the pieces' writes,
// which fails the handler's writes.
//
// Compression: a streamed body is sent as it is. The hook for compressing
// it on the fly (gzip when Accept-Encoding allows) is streamBody (fasthttp)
// and stdStream.w (net/http): wrap them there.

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/jetrpc/jetrpc/internal/engineconn"
	"github.com/valyala/fasthttp"
)

// errStreamCut fails the body of a response whose handler failed after
// pieces went out.
var errStreamCut = errors.New("nethttp: streamed response cut off (its handler failed)")

// errClientGone fails the pieces still to come once fasthttp is done with
// the body (it was written, or the client went away).
var errClientGone = errors.New("nethttp: streamed response's body closed")

// httpStream is a fasthttp connection's Streamer for its current request,
// and the parent context of its requests (it answers StreamKey while a
// POST is processed). fasthttp serves one request of a connection at a
// time; the pipe is made per streamed response.
type httpStream struct {
	context.Context
	armed   bool // a POST is being processed: StreamKey answers
	started bool // the current response is streamed (Started)
	pr      *io.PipeReader
	pw      *io.PipeWriter
}

var _ engineconn.Detacher = (*httpStream)(nil)

func (s *httpStream) Value(key any) any {
	if _, ok := key.(engineconn.StreamKey); ok && s.armed {
		return s
	}
	return s.Context.Value(key)
}

// Detached is called on the call's goroutine just before the handler
// that read the request returns, when the first piece is coming.
func (s *httpStream) Detached() {
	s.started = true
	s.pr, s.pw = io.Pipe()
}

// Piece hands b to fasthttp's body writer, waiting until it took it.
func (s *httpStream) Piece(b []byte, first bool) error {
	_, err := s.pw.Write(b)
	return err
}

// End completes the body, or fails it.
func (s *httpStream) End(b []byte, ok bool) {
	if !ok {
		s.pw.CloseWithError(errStreamCut)
		return
	}
	if _, err := s.pw.Write(b); err == nil {
		s.pw.Close()
	}
}

// streamOf returns the httpStream of ctx's connection (nil when the
// connection is not one of an HTTPServer's listeners).
func streamOf(ctx *fasthttp.RequestCtx) *httpStream {
	if c, ok := httpConnOf(ctx.Conn()); ok {
		return &c.stream
	}
	return nil
}

// arm makes s answer StreamKey while a POST is processed.
func (s *httpStream) arm() {
	if s != nil {
		s.armed, s.started = true, false
	}
}

// serveStreamed ends the processing of a POST: when its response is
// streamed it makes the pipe the body, chunked, and reports true.
func serveStreamed(ctx *fasthttp.RequestCtx, s *httpStream) bool {
	if s == nil {
		return false
	}
	s.armed = false
	if !s.started {
		return false
	}
	s.started = false
	ctx.Response.Header.SetContentTypeBytes(jsonContentType)
	ctx.SetBodyStream(streamBody{s.pr}, -1) // -1: chunked; the compression hook
	return true
}

// streamBody is the body fasthttp reads a streamed response from; it
// closes it when done, which fails the pieces still to come.
type streamBody struct{ pr *io.PipeReader }

func (b streamBody) Read(p []byte) (int, error) { return b.pr.Read(p) }
func (b streamBody) Close() error               { return b.pr.CloseWithError(errClientGone) }

// stdStream is the net/http adapter's Streamer for one request: it writes
// the pieces to the ResponseWriter from the handler's goroutine.
type stdStream struct {
	context.Context
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
	cut     bool
}

func (s *stdStream) Value(key any) any {
	if _, ok := key.(engineconn.StreamKey); ok {
		return s
	}
	return s.Context.Value(key)
}

func (s *stdStream) Piece(b []byte, first bool) error {
	if first {
		s.started = true
		s.w.Header().Set("Content-Type", "application/json")
		s.rc = http.NewResponseController(s.w)
	}
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.rc.Flush()
}

func (s *stdStream) End(b []byte, ok bool) {
	if !ok {
		s.cut = true
		return
	}
	s.w.Write(b)
}

// finish ends a request whose response may have been streamed: it
// reports whether it was; a cut-off one aborts the response.
func (s *stdStream) finish() bool {
	if s.cut {
		panic(http.ErrAbortHandler) // net/http ends the body without its last chunk
	}
	return s.started
}
