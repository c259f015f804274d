package main

// NOTE: what "jetrpc serve" tells a newcomer (#30): after the "listening"
// lines (whose format outside tests rely on) one line per feature of the
// HTTP and admin listeners, "KIND URL", so that --ui, --mcp and --a2a say
// where they are; and the 405 hints of the HTTP listener, so that a GET of
// a path served elsewhere or by a flag not given says which.

import (
	"fmt"
	"io"
)

// feature is one line printed after the listening lines.
type feature struct{ kind, path string }

// features are the feature lines of cfg's HTTP listener, in print order.
func (cfg *serveConfig) features() []feature {
	var fs []feature
	if cfg.browser.ui {
		fs = append(fs, feature{"ui", "/ui/"})
	}
	if cfg.mcp.on {
		fs = append(fs, feature{"mcp", mcpPath})
	}
	if cfg.a2a.on {
		fs = append(fs, feature{"a2a", a2aPath}, feature{"a2a-card", a2aCardPath})
	}
	if cfg.docs["/openrpc.json"] != nil {
		fs = append(fs, feature{"openrpc", "/openrpc.json"})
	}
	return fs
}

// printFeatures prints the feature lines once the listeners are bound.
func (s *server) printFeatures(cfg *serveConfig, stderr io.Writer) {
	scheme := "http"
	if cfg.tls.cert != "" {
		scheme = "https"
	}
	if s.webLn != nil {
		for _, f := range cfg.features() {
			fmt.Fprintf(stderr, "%s %s://%s%s\n", f.kind, scheme, s.webLn.Addr(), f.path)
		}
	}
	if s.adminLn != nil && s.obs.reg != nil {
		fmt.Fprintf(stderr, "metrics http://%s/metrics\n", s.adminLn.Addr())
	}
}

// setHints sets what a GET of a path this HTTP listener does not serve
// answers (405, nethttp.HTTPServer.Hint): the flag that serves it. It
// runs once the listeners are bound, before they serve.
func (s *server) setHints(cfg *serveConfig) {
	if s.http == nil {
		return
	}
	admin := "serve it with --admin ADDR (a listener for operators: /metrics, /debug/pprof/, /healthz, /readyz)"
	if s.adminLn != nil {
		admin = "it is served by the admin listener, http://" + s.adminLn.Addr().String() + ", not by --http"
	}
	hints := map[string]string{"/metrics": admin, "/debug/pprof/": admin, "/debug/pprof": admin}
	if !cfg.browser.ui {
		hints["/ui"], hints["/ui/"] = "serve the web console with --ui", "serve the web console with --ui"
	}
	if !cfg.mcp.on {
		hints[mcpPath] = "serve MCP (Streamable HTTP) here with --mcp"
	}
	if !cfg.a2a.on {
		for _, p := range []string{a2aPath, a2aCardPath, a2aCardPath2} {
			hints[p] = "serve the A2A agent and its card with --a2a"
		}
	}
	for p, h := range hints {
		s.http.Hint(p, h)
	}
}
