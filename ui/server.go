package ui

import (
	"net/http"
	"strings"

	"github.com/jetrpc/jetrpc/netserver/guard"
)

// ServerOptions configures a Server. A nil *ServerOptions means the
// defaults.
type ServerOptions struct {
	Proxy ProxyOptions
	// Document, when set, is the OpenRPC document of the target (jetrpc
	// ui --openrpc FILE); else the page asks the target's rpc.discover.
	Document func() ([]byte, error)
	// Hosts are the Host headers the server answers besides localhost and
	// IP literals (nil: only those). The console reaches the target with
	// whatever it can, so a page of another site must not reach it: see
	// guard.HostPolicy for DNS rebinding.
	Hosts *guard.HostPolicy
}

// Server is the console for a target server: the page at / and /ui/, a
// Proxy for the page's calls (POST to any path, the WebSocket at /ws). It
// answers only its own pages: a request whose Origin is another host's is
// 403, as is a Host header the Hosts policy refuses.
type Server struct {
	page  http.Handler
	proxy *Proxy
	hosts *guard.HostPolicy
}

// NewServer returns the console for target (see NewProxy for its forms).
func NewServer(target string, opts *ServerOptions) (*Server, error) {
	var o ServerOptions
	if opts != nil {
		o = *opts
	}
	p, err := NewProxy(target, &o.Proxy)
	if err != nil {
		return nil, err
	}
	if o.Hosts == nil {
		o.Hosts, _ = guard.NewHostPolicy()
	}
	return &Server{page: Handler(&Options{Target: target, Document: o.Document}), proxy: p, hosts: o.Hosts}, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.hosts.Allow(r.Host) {
		http.Error(w, "invalid host specified", http.StatusForbidden)
		return
	}
	if !sameOrigin(r) {
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	switch p := r.URL.Path; {
	case r.Method == http.MethodPost || p == "/ws":
		s.proxy.ServeHTTP(w, r)
	case p == "/ui":
		http.Redirect(w, r, "/ui/", http.StatusMovedPermanently)
	case p == "/" || strings.HasPrefix(p, "/ui/") || !strings.Contains(p[1:], "/"):
		s.page.ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

// Close closes the proxy's connections.
func (s *Server) Close() error { return s.proxy.Close() }

// sameOrigin reports whether r has no Origin or its own host's.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	_, host, ok := strings.Cut(o, "://")
	return ok && strings.EqualFold(host, r.Host)
}
