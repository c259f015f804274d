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
// Compression: a streamed body is coded on the fly when the request's
// Accept-Encoding allows and compression is on (a streamed result is
// longer than any CompressMin: it has a piece of 64 KiB before it
// streams). Each piece is compressed and sync-flushed on its own, so that
// the client can decode what came as it comes; the coded stream's trailer
// goes with the last piece, and a body cut off gets none.

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"

	"github.com/jetrpc/jetrpc/internal/engineconn"
	"github.com/jetrpc/jetrpc/internal/httpz"
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
func serveStreamed(ctx *fasthttp.RequestCtx, s *httpStream, z *coding) bool {
	if s == nil {
		return false
	}
	s.armed = false
	if !s.started {
		return false
	}
	s.started = false
	ctx.Response.Header.SetContentTypeBytes(jsonContentType)
	if enc := z.encoding(ctx, math.MaxInt); enc != httpz.Identity {
		ctx.Response.Header.SetContentEncodingBytes(encNames[enc])
		s.body.enc = enc
	}
	ctx.SetBodyStream(s.body, -1) // -1: chunked
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
	coder         // the content coding, if any
}

// coder codes the pieces of a streamed body (Identity: not at all).
type coder struct {
	enc httpz.Encoding
	zw  *httpz.Writer
	out appendWriter // zw's destination
}

// appendWriter appends what is written to b.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// code returns p as it goes on the wire: compressed and sync-flushed when
// the body is coded.
func (c *coder) code(p []byte) []byte {
	if c.enc == httpz.Identity || len(p) == 0 {
		return p
	}
	if c.zw == nil {
		c.zw = httpz.NewWriter(c.enc, &c.out)
	}
	c.out.b = c.out.b[:0]
	c.zw.Write(p) // an appendWriter never fails
	c.zw.Flush()
	return c.out.b
}

// end returns the coded stream's trailer (nil when not coded) and gives the
// compressor back; a body cut off (ok false) gets no trailer.
func (c *coder) end(ok bool) []byte {
	if c.enc == httpz.Identity {
		return nil
	}
	if c.zw == nil {
		c.zw = httpz.NewWriter(c.enc, &c.out)
	}
	c.out.b = c.out.b[:0]
	if !ok {
		c.zw.Abort()
		c.zw = nil
		return nil
	}
	c.zw.Close() // an appendWriter never fails
	c.zw = nil
	return c.out.b
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
			k, werr = w.Write(b.code(p))
			n += int64(k)
		}
		b.acks <- werr
	}
	switch {
	case werr != nil:
		b.end(false)
		return n, werr
	case b.cut:
		b.end(false)
		return n, errStreamCut
	}
	if t := b.end(true); len(t) > 0 {
		k, err := w.Write(t)
		return n + int64(k), err
	}
	return n, nil
}

// Read is io.Reader's, should fasthttp read the body instead.
func (b *streamBody) Read(p []byte) (int, error) {
	b.ran = true
	for len(b.rest) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		piece, ok := <-b.pieces
		if !ok {
			if b.cut {
				b.end(false)
				b.err = errStreamCut
				return 0, b.err
			}
			b.err = io.EOF
			b.rest = append(b.rest[:0], b.end(true)...)
			continue
		}
		b.rest = append(b.rest[:0], b.code(piece)...)
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
	r       *http.Request // its Accept-Encoding
	z       *coding
	rc      *http.ResponseController
	started bool
	cut     bool
	coder
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
		s.enc = s.z.stdEncoding(s.w, s.r, math.MaxInt)
		s.rc = http.NewResponseController(s.w)
	}
	if _, err := s.w.Write(s.code(b)); err != nil {
		return err
	}
	return s.rc.Flush()
}

func (s *stdStream) End(b []byte, ok bool) {
	if !ok {
		s.end(false)
		s.cut = true
		return
	}
	s.w.Write(s.code(b))
	s.w.Write(s.end(true))
}

// finish ends a request whose response may have been streamed: it
// reports whether it was; a cut-off one aborts the response.
func (s *stdStream) finish() bool {
	if s.cut {
		panic(http.ErrAbortHandler) // net/http ends the body without its last chunk
	}
	return s.started
}
