package nethttp

// NOTE: netserver.Options.Documents, the JSON documents the HTTP servers answer GET
// (and HEAD) of, such as the OpenRPC document at /openrpc.json. Both HTTP
// servers look a non-POST request's path up here after the health
// endpoints.

import (
	"net/http"

	"github.com/valyala/fasthttp"
)

// documents are the GET endpoints of netserver.Options.Documents.
type documents map[string]func() ([]byte, error)

// serveFast answers a GET or HEAD of a document's path on fasthttp and
// reports whether it did.
func (d documents) serveFast(ctx *fasthttp.RequestCtx, z *coding) bool {
	get, ok := d[string(ctx.Path())]
	if !ok || !ctx.IsGet() && !ctx.IsHead() {
		return false
	}
	doc, err := get()
	if err != nil {
		ctx.Error(err.Error(), fasthttp.StatusInternalServerError)
		return true
	}
	ctx.Response.Header.SetContentTypeBytes(jsonContentType)
	ctx.Response.Header.SetBytesV(fasthttp.HeaderCacheControl, noStore)
	if ctx.IsGet() {
		z.setBody(ctx, doc)
	} else {
		ctx.Response.Header.SetContentLength(len(doc))
	}
	return true
}

// serveStd is serveFast for net/http.
func (d documents) serveStd(w http.ResponseWriter, r *http.Request, z *coding) bool {
	get, ok := d[r.URL.Path]
	if !ok || r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	doc, err := get()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return true
	}
	w.Header().Set("Content-Type", string(jsonContentType))
	w.Header().Set("Cache-Control", string(noStore))
	if r.Method == http.MethodGet {
		z.stdWrite(w, r, doc)
	}
	return true
}
