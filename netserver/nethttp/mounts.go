package nethttp

// NOTE: netserver.Options.Mounts, net/http handlers for GET and HEAD of the paths
// under a prefix, such as the web console at /ui/ (package ui). Both HTTP
// servers look a non-POST request's path up here after the documents;
// fasthttp runs them through fasthttpadaptor, whose allocations only these
// requests pay.

import (
	"bytes"
	"net/http"
	"slices"
	"strings"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// mounts are the handlers of netserver.Options.Mounts, longest prefix first.
type mounts []mount

type mount struct {
	prefix []byte // ends in "/"
	std    http.Handler
	fast   fasthttp.RequestHandler
}

func newMounts(m map[string]http.Handler) mounts {
	var ms mounts
	for p, h := range m {
		if h == nil || p == "" {
			continue
		}
		if !strings.HasSuffix(p, "/") {
			p += "/"
		}
		ms = append(ms, mount{prefix: []byte(p), std: h, fast: fasthttpadaptor.NewFastHTTPHandler(h)})
	}
	slices.SortFunc(ms, func(a, b mount) int { return len(b.prefix) - len(a.prefix) })
	return ms
}

// find returns the mount of path; redirect is set when path is a prefix
// without its trailing "/".
func (ms mounts) find(path []byte) (m *mount, redirect bool) {
	for i := range ms {
		p := ms[i].prefix
		if bytes.HasPrefix(path, p) {
			return &ms[i], false
		}
		if len(path) == len(p)-1 && bytes.Equal(path, p[:len(p)-1]) {
			return &ms[i], true
		}
	}
	return nil, false
}

// serveFast answers a GET or HEAD under a mount on fasthttp and reports
// whether it did.
func (ms mounts) serveFast(ctx *fasthttp.RequestCtx) bool {
	if len(ms) == 0 || !ctx.IsGet() && !ctx.IsHead() {
		return false
	}
	m, redirect := ms.find(ctx.Path())
	switch {
	case m == nil:
		return false
	case redirect:
		ctx.Redirect(string(m.prefix), fasthttp.StatusMovedPermanently)
	default:
		m.fast(ctx)
	}
	return true
}

// serveStd is serveFast for net/http.
func (ms mounts) serveStd(w http.ResponseWriter, r *http.Request) bool {
	if len(ms) == 0 || r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	m, redirect := ms.find([]byte(r.URL.Path))
	switch {
	case m == nil:
		return false
	case redirect:
		http.Redirect(w, r, string(m.prefix), http.StatusMovedPermanently)
	default:
		m.std.ServeHTTP(w, r)
	}
	return true
}
