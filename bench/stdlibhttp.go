package bench

import "github.com/valyala/fasthttp"

// StdlibHTTP returns a fasthttp handler that answers a POST with the
// encoding/json baseline: 200 and the response, or 204 when none is due;
// any other method gets 405. Served by a fasthttp.Server with jetrpc's
// timeouts, it is the baseline over HTTP.
func StdlibHTTP(s Baseline) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if !ctx.IsPost() {
			ctx.SetStatusCode(fasthttp.StatusMethodNotAllowed)
			return
		}
		out := s.Process(ctx.PostBody())
		if out == nil {
			ctx.SetStatusCode(fasthttp.StatusNoContent)
			return
		}
		ctx.SetContentType("application/json")
		ctx.SetBody(out)
	}
}
