package nethttp

import (
	"errors"
	"net/http"
	"strings"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/httpz"
	"github.com/jetrpc/jetrpc/internal/pool"
	"github.com/jetrpc/jetrpc/netserver"
)

// Handler returns a net/http Handler that serves JSON-RPC 2.0 the way
// HTTPServer does: POST (any path) with one message or batch gets 200 and
// the response as application/json, or 204 and an empty body when no
// response is due; a body over Options.MaxMessage gets 413; other methods
// get 405 with "Allow: POST" (GET /ws too: unlike HTTPServer, Handler does
// not serve WebSocket), except GET and HEAD of the health endpoints. A POST
// whose Accept header includes text/event-stream gets a stream of
// Server-Sent Events as from HTTPServer. Of netserver.Options it uses
// MaxMessage, MaxPending (the unwritten events of one stream), HealthPath,
// ReadyPath, Health, Documents, Mounts and Methods (HTTP's set for a POST,
// SSE's for a stream) only: timeouts, connection limits and the drain (call
// Health.Drain, wait, then http.Server.Shutdown) belong to the http.Server.
//
// Handler contexts derive from the request's context, so a call is cancelled
// when its client goes away (and, through http.Server.BaseContext, when the
// server decides so).
func Handler(e *dispatch.Engine, opts *netserver.Options) http.Handler {
	lim, o := newLimits(e, opts), or(opts)
	return &stdHandler{e: e, max: int64(lim.set.MaxMessage), lim: lim, health: newHealthPaths(&o, lim.host),
		docs: o.Documents, mounts: newMounts(o.Mounts), z: coding{min: compressMin(opts)}}
}

// stdHandler is the net/http adapter.
type stdHandler struct {
	e       *dispatch.Engine
	max     int64
	lim     limits
	health  healthPaths
	docs    documents // netserver.Options.Documents (documents.go)
	mounts  mounts    // netserver.Options.Mounts (mounts.go)
	z       coding    // content coding (compress.go)
	in, out pool.Buffers
}

// wantsEventStream reports whether an Accept header includes
// text/event-stream.
func wantsEventStream(h http.Header) bool {
	for _, a := range h.Values("Accept") {
		if hasEventStream(a) {
			return true
		}
	}
	return false
}

func (h *stdHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.admitStd(w, r) { // Host, Origin, CORS (http_guard.go)
		return
	}
	var ok bool
	if r.Method != http.MethodPost {
		h.serveNotPost(w, r)
		return
	}
	in := h.in.Get()
	defer h.in.Put(in)
	if !h.readBody(w, r, in) {
		return
	}
	if r, ok = h.admit(w, r, in.B); !ok { // Auth, RateLimit (http_guard.go)
		return
	}
	if !h.lim.host.Ready() { // draining: let keep-alive clients go elsewhere
		w.Header().Set("Connection", "close")
	}
	if wantsEventStream(r.Header) {
		h.serveSSE(w, r, in.B)
		return
	}
	out := h.out.Get()
	defer h.out.Put(out)
	// Streamed results (http_stream.go).
	st := &stdStream{Context: stdRequestContext(r, netserver.HTTP), w: w, r: r, z: &h.z}
	if set := h.lim.methods[netserver.HTTP]; set != nil { // netserver.Options.Methods; rpc.discover finds it in the context
		out.B = set.ProcessContext(dispatch.WithMethodSet(st, set), out.B, in.B)
	} else {
		out.B = h.e.ProcessContext(st, out.B, in.B)
	}
	if st.finish() {
		return
	}
	if len(out.B) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	h.z.stdWrite(w, r, out.B)
}

// readBody reads the request body into in, or answers the request itself
// and reports false. Going over the limit through http.MaxBytesReader makes
// net/http close the connection after the 413 in a way that lets the client
// read it. A declared Content-Length over the limit is refused without
// reading the body: at once if the client waits for "100 Continue" (which
// net/http sends on the first read), else through a limit of 0.
func (h *stdHandler) readBody(w http.ResponseWriter, r *http.Request, in *pool.Buffer) bool {
	limit := h.max
	if r.ContentLength > limit {
		if strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
			h.lim.observe(netserver.HTTP, netserver.ConnTooLarge)
			stdError(w, http.StatusRequestEntityTooLarge)
			return false
		}
		limit = 0
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	var err error
	var enc httpz.Encoding
	if ce := r.Header["Content-Encoding"]; len(ce) > 0 { // compress.go
		var ok bool
		if enc, ok = httpz.ContentEncoding(ce[0]); !ok || len(ce) > 1 {
			err = errUnknownCoding
		} else { // the coded body is held to the limit too, by body
			in.B, err = httpz.InflateFrom(in.B[:0], enc, body, int(h.max))
		}
	} else {
		_, err = in.ReadFrom(body)
	}
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil:
		return true
	case errors.As(err, &tooLarge), errors.Is(err, httpz.ErrTooLarge):
		h.lim.observe(netserver.HTTP, netserver.ConnTooLarge)
		stdError(w, http.StatusRequestEntityTooLarge)
	case errors.Is(err, errUnknownCoding), errors.Is(err, httpz.ErrMalformed):
		status := codingStatus(err)
		http.Error(w, codingMessage(status, enc), status)
	default: // a broken body: malformed chunks, the client went away
		stdError(w, http.StatusBadRequest)
	}
	return false
}

func stdError(w http.ResponseWriter, status int) {
	http.Error(w, http.StatusText(status), status)
}

// serveNotPost answers every request whose method is not POST.
func (h *stdHandler) serveNotPost(w http.ResponseWriter, r *http.Request) {
	if h.health.serveStd(w, r) {
		return
	}
	if _, doc := h.docs[r.URL.Path]; doc {
		var ok bool
		if r, ok = h.admit(w, r, nil); !ok {
			return
		}
	}
	if h.docs.serveStd(w, r, &h.z) {
		return
	}
	if h.mounts.serveStd(w, r) {
		return
	}
	w.Header().Set("Allow", http.MethodPost)
	stdError(w, http.StatusMethodNotAllowed)
}
