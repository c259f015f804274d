package nethttp

// NOTE: streamed results (dispatch.StreamResult) over HTTP, sent with
// chunked transfer encoding as they are produced.
//
//   - fasthttp writes a response only after its handler returned, so its
//     connections offer an httpStream, an engineconn.Detacher: a call of
//     a dispatch.Method with Streams runs on a goroutine of its own, and
//     once its first piece comes the handler returns with a streamBody,
//     whose pieces fasthttp writes as chunks as the call hands them over. A call that
//     ends before its first piece is answered as usual. Other handlers
//     that take a ResultWriter are held (up to MaxResponse), since they
//     run on the handler's goroutine. A request served through Handler
//     in a fasthttp server of one's own holds its results too.
//   - The net/http adapter writes the pieces itself, from the handler's
//     goroutine (stdStream), flushing each.
//
// A result that cannot be completed (its handler failed after pieces went
// out) ends the body without its last chunk, so that no client takes it
// for a whole answer: streamBody.WriteTo fails (fasthttp then closes the
// connection without the terminating chunk), or the net/http handler
// panics with http.ErrAbortHandler. A client that goes away fails the pieces' writes,
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

// errClientGone fails the pieces of a body fasthttp never wrote.
var errClientGone = errors.New("nethttp: streamed response's body closed")

// httpStream is a fasthttp connection's Streamer for its current request,
// and the parent context of its requests (it answers StreamKey while a
// POST is processed). fasthttp serves one request of a connection at a
// time; a streamBody is made per streamed response.
type httpStream struct {
	context.Context
	armed   bool        // a POST is being processed: StreamKey answers
	started bool        // the current response is streamed (Detached)
	body    *streamBody // the current streamed response's
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
	s.body = &streamBody{pieces: make(chan []byte), acks: make(chan error)}
}

// Piece hands b to fasthttp's body writer and waits until it wrote it.
func (s *httpStream) Piece(b []byte, first bool) error { return s.body.hand(b) }

// End completes the body, or fails it.
func (s *httpStream) End(b []byte, ok bool) {
	if ok {
		s.body.hand(b)
	} else {
		s.body.cut = true
	}
	close(s.body.pieces)
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
// streamed it makes the pieces the body, chunked, and reports true.
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
	ctx.SetBodyStream(s.body, -1) // -1: chunked; the compression hook
	return true
}

// streamBody is the body of a streamed response: the call's goroutine
// hands each piece over (hand) and fasthttp writes it as one chunk
// (WriteTo) and acknowledges it, so that a piece is never copied and a
// slow client holds the handler. cut is written before pieces is closed.
type streamBody struct {
	pieces chan []byte
	acks   chan error
	cut    bool
	ran    bool   // WriteTo ran (fasthttp's goroutine)
	rest   []byte // Read's: what is left of the last piece
	err    error  // Read's: the writer side failed
}

var _ fasthttp.BodyWriterTo = (*streamBody)(nil)

// hand passes b to the writer and returns the write's error.
func (b *streamBody) hand(p []byte) error {
	b.pieces <- p
	return <-b.acks
}

// SupportsBodyWriteTo makes fasthttp use WriteTo.
func (b *streamBody) SupportsBodyWriteTo() bool { return true }

// WriteTo writes each piece as it comes, until the last; after a failed
// write it fails the pieces still to come. A body cut off returns an
// error, so that fasthttp ends it without its last chunk.
func (b *streamBody) WriteTo(w io.Writer) (int64, error) {
	b.ran = true
	var n int64
	var werr error
	for p := range b.pieces {
		if werr == nil {
			var k int
			k, werr = w.Write(p)
			n += int64(k)
		}
		b.acks <- werr
	}
	switch {
	case werr != nil:
		return n, werr
	case b.cut:
		return n, errStreamCut
	}
	return n, nil
}

// Read is io.Reader's, should fasthttp read the body instead.
func (b *streamBody) Read(p []byte) (int, error) {
	b.ran = true
	for len(b.rest) == 0 {
		piece, ok := <-b.pieces
		if !ok {
			if b.cut {
				return 0, errStreamCut
			}
			return 0, io.EOF
		}
		b.rest = append(b.rest[:0], piece...)
		b.acks <- nil
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

// Close is called by fasthttp when it is done with the body; one it never
// wrote (the connection closed first) fails the pieces still to come.
func (b *streamBody) Close() error {
	if !b.ran {
		b.ran = true
		go func() {
			for range b.pieces {
				b.acks <- errClientGone
			}
		}()
	}
	return nil
}

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
