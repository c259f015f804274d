package nethttp

import (
	"net/http"

	"github.com/jetrpc/jetrpc/netserver"
	"github.com/valyala/fasthttp"
)

// Default health endpoints of the HTTP servers (netserver.Options.HealthPath and
// netserver.Options.ReadyPath).
const (
	DefaultHealthPath = "/healthz"
	DefaultReadyPath  = "/readyz"
)

// LiveHandler returns a net/http Handler of h's liveness probe: 200 "ok".
func LiveHandler(h *netserver.Health) http.Handler { return healthHandler{h: h} }

// ReadyHandler returns a net/http Handler of h's readiness probe: 200 "ok"
// while h is ready, 503 "draining" once it drains.
func ReadyHandler(h *netserver.Health) http.Handler { return healthHandler{h: h, ready: true} }

// readier is a netserver.Health, or a server's Host, which reports its own.
type readier interface{ Ready() bool }

// probe is the answer to a probe of h: status and body.
func probe(h readier, ready bool) (int, string) {
	if ready && !h.Ready() {
		return http.StatusServiceUnavailable, "draining\n"
	}
	if c, ok := h.(interface{ CheckReady() error }); ok && ready {
		if err := c.CheckReady(); err != nil {
			return http.StatusServiceUnavailable, err.Error() + "\n"
		}
	}
	return http.StatusOK, "ok\n"
}

// healthReadier is a server's readier with its Health's ready check.
type healthReadier struct {
	readier
	h *netserver.Health
}

func (r healthReadier) CheckReady() error { return r.h.CheckReady() }

// healthPaths are the endpoints of one HTTP server; an empty path is off.
type healthPaths struct {
	h           readier
	live, ready string
}

// newHealthPaths returns the endpoints of opts, reporting h.
func newHealthPaths(o *netserver.Options, h readier) healthPaths {
	if o.Health != nil { // its ready check (Health.SetReadyCheck) too
		h = healthReadier{h, o.Health}
	}
	return healthPaths{h: h, live: healthPath(o.HealthPath, DefaultHealthPath), ready: healthPath(o.ReadyPath, DefaultReadyPath)}
}

// healthPath applies the default to "" and turns "-" off.
func healthPath(p, def string) string {
	switch p {
	case "":
		return def
	case "-":
		return ""
	}
	return p
}

// match reports whether path is one of the endpoints, and which.
func (p *healthPaths) match(path []byte) (ok, ready bool) {
	switch {
	case p.ready != "" && string(path) == p.ready:
		return true, true
	case p.live != "" && string(path) == p.live:
		return true, false
	}
	return false, false
}

// serveFast answers ctx if it is a GET or HEAD of a health endpoint.
func (p *healthPaths) serveFast(ctx *fasthttp.RequestCtx) bool {
	if !ctx.IsGet() && !ctx.IsHead() {
		return false
	}
	ok, ready := p.match(ctx.Path())
	if !ok {
		return false
	}
	status, body := probe(p.h, ready)
	ctx.SetStatusCode(status)
	ctx.Response.Header.SetContentTypeBytes(textContentType)
	ctx.Response.Header.SetBytesV(fasthttp.HeaderCacheControl, noStore)
	ctx.SetBodyString(body)
	return true
}

// serveStd answers r if it is a GET or HEAD of a health endpoint.
func (p *healthPaths) serveStd(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	ok, ready := p.match([]byte(r.URL.Path))
	if !ok {
		return false
	}
	writeProbe(w, p.h, ready)
	return true
}

// healthHandler is one probe as a net/http Handler.
type healthHandler struct {
	h     readier
	ready bool
}

func (hh healthHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		stdError(w, http.StatusMethodNotAllowed)
		return
	}
	writeProbe(w, hh.h, hh.ready)
}

func writeProbe(w http.ResponseWriter, h readier, ready bool) {
	status, body := probe(h, ready)
	w.Header().Set("Content-Type", string(textContentType))
	w.Header().Set("Cache-Control", string(noStore))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

var (
	textContentType = []byte("text/plain; charset=utf-8")
	noStore         = []byte("no-store")
)
