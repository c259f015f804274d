// Package fasthttpz is internal/httpz for fasthttp handlers that stream:
// the routes that jetrpc's HTTP server mounts (MCP's and A2A's endpoints)
// answer with an event stream that is compressed when the server offers a
// coding (httpz.StreamKey). Package httpz itself stays free of fasthttp,
// for the client links it.
package fasthttpz

import (
	"bufio"

	"github.com/jetrpc/jetrpc/internal/httpz"
	"github.com/valyala/fasthttp"
)

// SetStream answers ctx with the stream that fn writes, as
// ctx.SetBodyStreamWriter does, compressed (Content-Encoding set) when
// the server offered a coding under httpz.StreamKey. fn flushes after each
// event as before; each flush reaches the client decodable.
func SetStream(ctx *fasthttp.RequestCtx, fn func(w *bufio.Writer)) {
	enc, _ := ctx.UserValue(httpz.StreamKey).(httpz.Encoding)
	if enc != httpz.Gzip && enc != httpz.Deflate {
		ctx.SetBodyStreamWriter(fn)
		return
	}
	ctx.Response.Header.SetContentEncoding(enc.String())
	ctx.SetBodyStreamWriter(func(w *bufio.Writer) { httpz.Stream(enc, w, fn) })
}
