package netserver

// NOTE: health and drain. A Health is one atomic flag (draining) and the
// moment it was set. The HTTP servers answer GET and HEAD of the health
// paths from it (healthFast for fasthttp, the handlers below for net/http);
// Shutdown drains it first and waits out DrainDelay, counted from that
// moment, before it closes anything, so that servers sharing one Health wait
// one delay together however their Shutdowns are called.

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// Default health endpoints of the HTTP servers (Options.HealthPath and
// Options.ReadyPath).
const (
	DefaultHealthPath = "/healthz"
	DefaultReadyPath  = "/readyz"
)

// Health is what a server's health endpoints report. The liveness endpoint
// (/healthz) answers 200 as long as the server answers at all; the readiness
// endpoint (/readyz) answers 200 until Drain is called, then 503, so that a
// load balancer or a Kubernetes readiness probe stops sending new work.
//
// The zero value is ready. Servers that share one Health (Options.Health)
// report and drain together: Shutdown of each drains it, and their drain
// delays are counted from the first Drain. A Health is safe for concurrent
// use.
type Health struct {
	draining atomic.Bool
	mu       sync.Mutex
	since    time.Time // when Drain was first called
}

// Drain marks h as draining: readiness answers 503 from now on, and HTTP
// responses to calls ask their clients to close the connection. Only the
// first call counts; there is no way back.
func (h *Health) Drain() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.draining.Load() {
		h.since = time.Now()
		h.draining.Store(true)
	}
}

// Ready reports whether h is ready, that is not draining.
func (h *Health) Ready() bool { return !h.draining.Load() }

// LiveHandler returns a net/http Handler of the liveness probe: 200 "ok".
func (h *Health) LiveHandler() http.Handler { return healthHandler{h: h} }

// ReadyHandler returns a net/http Handler of the readiness probe: 200 "ok"
// while h is ready, 503 "draining" once it drains.
func (h *Health) ReadyHandler() http.Handler { return healthHandler{h: h, ready: true} }

// waitDrain drains h and waits until delay has passed since the drain
// began, or until ctx ends.
func (h *Health) waitDrain(ctx context.Context, delay time.Duration) {
	h.Drain()
	if delay <= 0 {
		return
	}
	h.mu.Lock()
	left := time.Until(h.since.Add(delay))
	h.mu.Unlock()
	if left <= 0 {
		return
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// probe is the answer to a probe: status and body.
func (h *Health) probe(ready bool) (int, string) {
	if ready && !h.Ready() {
		return http.StatusServiceUnavailable, "draining\n"
	}
	return http.StatusOK, "ok\n"
}

// healthPaths are the endpoints of one HTTP server; an empty path is off.
type healthPaths struct {
	h           *Health
	live, ready string
}

// newHealthPaths returns the endpoints of opts, reporting h.
func newHealthPaths(opts *Options, h *Health) healthPaths {
	o := opts.or()
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
	status, body := p.h.probe(ready)
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
	h     *Health
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

func writeProbe(w http.ResponseWriter, h *Health, ready bool) {
	status, body := h.probe(ready)
	w.Header().Set("Content-Type", string(textContentType))
	w.Header().Set("Cache-Control", string(noStore))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

var (
	textContentType = []byte("text/plain; charset=utf-8")
	noStore         = []byte("no-store")
)
