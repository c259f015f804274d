package ui

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed assets/index.html assets/app.js assets/app.css
var assets embed.FS

// Options configures the page. A nil *Options means the defaults.
type Options struct {
	// RPC is where the page posts its calls, relative to the page (default
	// "../": / for a page at /ui/ or at /).
	RPC string
	// WS is the WebSocket endpoint, relative to the page (default "../ws");
	// "-": none, the page then offers HTTP only.
	WS string
	// Target names the server the calls reach, shown by the page and used
	// in its "copy as jetrpc call" command: an http(s)://, ws(s):// or
	// tcp:// URL. Empty: the page's own server (RPC).
	Target string
	// Document, when set, returns the OpenRPC document the page lists the
	// methods of, served beside it as openrpc.json; else the page calls
	// rpc.discover (and, without an answer, takes a free-form method name).
	Document func() ([]byte, error)
}

// file is one asset, ready to serve.
type file struct {
	body  []byte
	ctype string
	etag  string
}

// page serves the assets.
type page struct {
	files map[string]file
	doc   func() ([]byte, error)
}

// Handler returns the handler of the page's files: GET or HEAD of a path
// ending in "/" is the page, and of ".../app.js", ".../app.css" and
// ".../config.json" (what Options say) its other files, whatever the
// prefix; ".../openrpc.json" is Options.Document. Anything else is 404,
// any other method 405.
func Handler(opts *Options) http.Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	p := &page{files: map[string]file{}, doc: o.Document}
	for name, ctype := range map[string]string{
		"index.html": "text/html; charset=utf-8",
		"app.js":     "text/javascript; charset=utf-8",
		"app.css":    "text/css; charset=utf-8",
	} {
		b, err := assets.ReadFile("assets/" + name)
		if err != nil {
			panic("ui: missing embedded asset " + name) // a build without them
		}
		p.files[name] = newFile(b, ctype)
	}
	p.files["config.json"] = newFile(o.config(), "application/json")
	return p
}

func newFile(b []byte, ctype string) file {
	sum := sha256.Sum256(b)
	return file{body: b, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
}

// config is config.json: what the page reads first.
func (o Options) config() []byte {
	c := struct {
		RPC      string `json:"rpc"`
		WS       string `json:"ws,omitempty"`
		Target   string `json:"target,omitempty"`
		Document string `json:"document,omitempty"`
	}{RPC: o.RPC, WS: o.WS, Target: o.Target}
	if c.RPC == "" {
		c.RPC = "../"
	}
	switch c.WS {
	case "":
		c.WS = "../ws"
	case "-":
		c.WS = ""
	}
	if o.Document != nil {
		c.Document = "openrpc.json"
	}
	b, _ := json.Marshal(c)
	return b
}

// csp keeps the page to its own files: no inline script, no other origin's
// code, not framed by another site (clickjacking a "Send").
const csp = "default-src 'self'; connect-src 'self' http: https: ws: wss:; img-src 'self' data:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (p *page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := path.Base(r.URL.Path)
	if strings.HasSuffix(r.URL.Path, "/") {
		name = "index.html"
	}
	h := w.Header()
	if name == "openrpc.json" && p.doc != nil {
		doc, err := p.doc()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "no-store")
		w.Write(doc)
		return
	}
	f, ok := p.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h.Set("Content-Type", f.ctype)
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", f.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", csp)
	h.Set("Referrer-Policy", "no-referrer")
	if r.Header.Get("If-None-Match") == f.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(f.body)))
	if r.Method == http.MethodGet {
		w.Write(f.body)
	}
}
