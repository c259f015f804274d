package nethttp

// NOTE: HTTP content coding on both servers (package internal/httpz does
// the coding). Responses: a POST's JSON-RPC answer, an event stream, a
// document and a route's whole JSON or text body (MCP's and A2A's, on
// HTTPServer; their streams through package internal/httpz/fasthttpz)
// are gzip- or deflate-coded when the request's Accept-Encoding
// allows (gzip preferred) and the body is at least
// netserver.Options.CompressMin bytes (an event stream: always, flushed per
// event); each such response says "Vary: Accept-Encoding" whether or not it
// was coded. Request bodies with Content-Encoding gzip or deflate are
// inflated, held to MaxMessage once inflated (413 past it, having inflated
// no more than that); another coding is 415; a body that does not decode is
// 400, for the HTTP layer failed before a JSON-RPC message existed, as with
// a malformed chunked body.

import (
	"bytes"
	"errors"
	"net/http"

	"github.com/jetrpc/jetrpc/internal/httpz"
	"github.com/jetrpc/jetrpc/internal/pool"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/valyala/fasthttp"
)

// coding is what a server does with content coding.
type coding struct {
	min  int // responses of at least min bytes are compressed; < 0: none
	bufs pool.Buffers
}

// compressMin is netserver.Options.CompressMin, its default applied.
func compressMin(opts *netserver.Options) int {
	if opts == nil || opts.CompressMin == 0 {
		return netserver.DefaultCompressMin
	}
	return opts.CompressMin
}

var (
	hdrVary          = []byte(fasthttp.HeaderVary)
	hdrAcceptEnc     = []byte(fasthttp.HeaderAcceptEncoding)
	hdrContentEnc    = []byte(fasthttp.HeaderContentEncoding)
	valAcceptEnc     = []byte("Accept-Encoding")
	encNames         = [...][]byte{httpz.Gzip: []byte("gzip"), httpz.Deflate: []byte("deflate")}
	stdVary          = []string{"Accept-Encoding"}
	stdEncNames      = [...][]string{httpz.Gzip: {"gzip"}, httpz.Deflate: {"deflate"}}
	errUnknownCoding = errors.New("unknown content coding")
)

// encoding returns the coding for a response of n bytes to ctx (Identity:
// none), after setting Vary on a response that could be compressed.
func (c *coding) encoding(ctx *fasthttp.RequestCtx, n int) httpz.Encoding {
	if c.min < 0 {
		return httpz.Identity
	}
	ctx.Response.Header.AddBytesKV(hdrVary, valAcceptEnc)
	if n < c.min {
		return httpz.Identity
	}
	return httpz.Negotiate(ctx.Request.Header.PeekBytes(hdrAcceptEnc))
}

// compressBody compresses the response body of ctx, which is its own
// buffer (not a caller's slice: the buffer is traded with the pool), when
// encoding says so.
func (c *coding) compressBody(ctx *fasthttp.RequestCtx) {
	body := ctx.Response.Body()
	enc := c.encoding(ctx, len(body))
	if enc == httpz.Identity {
		return
	}
	z := c.bufs.Get()
	z.B = httpz.Append(z.B[:0], enc, body)
	z.B = ctx.Response.SwapBody(z.B)[:0]
	c.bufs.Put(z)
	ctx.Response.Header.SetContentEncodingBytes(encNames[enc])
}

// offerStream offers a route's handler (netserver.Options.Routes: MCP's
// and A2A's endpoints) the coding its event streams may use, under
// httpz.StreamKey (package internal/httpz/fasthttpz uses it).
func (c *coding) offerStream(ctx *fasthttp.RequestCtx) {
	if c.min < 0 {
		return
	}
	if enc := httpz.Negotiate(ctx.Request.Header.PeekBytes(hdrAcceptEnc)); enc != httpz.Identity {
		ctx.SetUserValue(httpz.StreamKey, enc)
	}
}

// compressRoute compresses the answer of a route as compressBody does,
// when it is a whole body, a 200 of JSON or text, and not coded yet. An
// event stream (coded or not by the route, see offerStream) gets Vary.
func (c *coding) compressRoute(ctx *fasthttp.RequestCtx) {
	r := &ctx.Response
	if c.min < 0 || r.StatusCode() != fasthttp.StatusOK {
		return
	}
	if r.IsBodyStream() {
		if bytes.HasPrefix(r.Header.ContentType(), sseContentType) {
			r.Header.AddBytesKV(hdrVary, valAcceptEnc)
		}
		return
	}
	if len(r.Header.ContentEncoding()) > 0 {
		return
	}
	if ct := r.Header.ContentType(); !bytes.HasPrefix(ct, jsonContentType) && !bytes.HasPrefix(ct, textPrefix) {
		return
	}
	c.compressBody(ctx)
}

var textPrefix = []byte("text/")

// setBody sets body (which stays the caller's) as the response body of
// ctx, compressed when encoding says so.
func (c *coding) setBody(ctx *fasthttp.RequestCtx, body []byte) {
	enc := c.encoding(ctx, len(body))
	if enc == httpz.Identity {
		ctx.Response.SetBodyRaw(body)
		return
	}
	ctx.Response.SwapBody(httpz.Append(ctx.Response.SwapBody(nil)[:0], enc, body))
	ctx.Response.Header.SetContentEncodingBytes(encNames[enc])
}

// inflate returns the request body of ctx decoded (into in when it was
// coded), or answers the request itself and returns nil and the status
// (413, 415, 400).
func (c *coding) inflate(ctx *fasthttp.RequestCtx, body []byte, in *pool.Buffer, max int) ([]byte, int) {
	enc, ok := httpz.ContentEncoding(ctx.Request.Header.ContentEncoding())
	var err error
	switch {
	case !ok:
		err = errUnknownCoding
	case enc == httpz.Identity:
		return body, 0
	default:
		if in.B, err = httpz.Inflate(in.B[:0], enc, body, max); err == nil {
			if in.B == nil {
				in.B = []byte{} // an empty body, not a refusal
			}
			return in.B, 0
		}
	}
	status := codingStatus(err)
	if status == http.StatusRequestEntityTooLarge {
		tooLarge(ctx)
	} else {
		ctx.Error(codingMessage(status, enc), status)
	}
	return nil, status
}

// codingStatus is the HTTP status of a request body that could not be
// decoded for err.
func codingStatus(err error) int {
	switch {
	case errors.Is(err, errUnknownCoding):
		return http.StatusUnsupportedMediaType
	case errors.Is(err, httpz.ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

func codingMessage(status int, enc httpz.Encoding) string {
	switch status {
	case http.StatusUnsupportedMediaType:
		return "Unsupported Media Type: Content-Encoding may be gzip, deflate or identity\n"
	case http.StatusRequestEntityTooLarge:
		return http.StatusText(status)
	}
	return "Bad Request: the body is not valid " + enc.String() + "\n"
}

// stdEncoding is encoding for net/http.
func (c *coding) stdEncoding(w http.ResponseWriter, r *http.Request, n int) httpz.Encoding {
	if c.min < 0 {
		return httpz.Identity
	}
	h := w.Header()
	if v := h["Vary"]; v == nil {
		h["Vary"] = stdVary // shared: len == cap, so an Add copies it
	} else {
		h["Vary"] = append(v, stdVary[0])
	}
	if n < c.min {
		return httpz.Identity
	}
	var enc httpz.Encoding
	for _, v := range r.Header["Accept-Encoding"] {
		if enc = httpz.Negotiate(v); enc != httpz.Identity {
			break
		}
	}
	if enc != httpz.Identity {
		h["Content-Encoding"] = stdEncNames[enc]
	}
	return enc
}

// stdWrite writes body as the response, compressed when stdEncoding says
// so.
func (c *coding) stdWrite(w http.ResponseWriter, r *http.Request, body []byte) {
	enc := c.stdEncoding(w, r, len(body))
	if enc == httpz.Identity {
		_, _ = w.Write(body)
		return
	}
	z := c.bufs.Get()
	z.B = httpz.Append(z.B[:0], enc, body)
	_, _ = w.Write(z.B)
	c.bufs.Put(z)
}
