package nethttp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/streamtest"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// streamTargets runs both HTTP servers over one engine with the demo
// methods and the streaming handlers of internal/streamtest.
func streamTargets(t *testing.T, opts dispatch.Options, extra ...dispatch.Method) map[string]*httpTarget {
	t.Helper()
	httpNoLeaks(t)
	opts.Logger = slog.New(slog.DiscardHandler)
	e := dispatch.New(&opts)
	t.Cleanup(e.Close)
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	for _, m := range append(streamtest.Methods(), extra...) {
		if err := e.RegisterMethod(m); err != nil {
			t.Fatal(err)
		}
	}
	fs := nethttp.New(e, nil)
	ss := &http.Server{Handler: nethttp.Handler(e, nil), ReadHeaderTimeout: 5 * time.Second}
	return map[string]*httpTarget{
		"fasthttp": serveHTTP(t, nil, fs.Serve, fs.Shutdown, netserver.ErrServerClosed),
		"net/http": serveHTTP(t, nil, ss.Serve, ss.Shutdown, http.ErrServerClosed),
	}
}

// postRaw posts msg and returns the response and its whole body (err:
// the body did not end properly).
func (h *httpTarget) postRaw(msg string) (*http.Response, []byte, error) {
	h.t.Helper()
	resp, err := h.client.Post(h.url, "application/json", strings.NewReader(msg))
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// TestStreamResultHTTP: every streaming handler of the table over both
// HTTP servers is answered one valid response with its id; a result of
// more than one piece comes with chunked transfer encoding; one cut off
// (its handler failed after pieces went out) ends without its last
// chunk, so the client's read fails; the connection's next request is
// answered as usual.
func TestStreamResultHTTP(t *testing.T) {
	for name, h := range streamTargets(t, dispatch.Options{}) {
		for i, sc := range streamtest.Cases {
			resp, body, err := h.postRaw(streamtest.Call(sc.Method, i+1))
			if sc.Cut {
				if err == nil {
					t.Fatalf("%s %s: body read whole: %.100s", name, sc.Method, body)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", name, sc.Method, err)
			}
			streamtest.Check(t, sc, i+1, body)
			if chunked := len(resp.TransferEncoding) > 0; chunked != (len(body) > 64<<10) {
				t.Fatalf("%s %s: %d bytes, Transfer-Encoding %v", name, sc.Method, len(body), resp.TransferEncoding)
			}
			_, body, err = h.postRaw(`{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":1}`)
			if err != nil || string(body) != `{"jsonrpc":"2.0","id":1,"result":2}` {
				t.Fatalf("%s after %s: %v %s", name, sc.Method, err, body)
			}
		}
		// A batch member streams into the batch's array (held).
		_, body, err := h.postRaw("[" + streamtest.Call("stream_many", 1) + "," + streamtest.Call("stream_one", 2) + "]")
		var rs []json.RawMessage
		if err != nil || json.Unmarshal(body, &rs) != nil || len(rs) != 2 {
			t.Fatalf("%s batch: %v %.100s", name, err, body)
		}
	}
}

// TestStreamResultHTTPMaxResponse: a blob far over MaxResponse streams
// whole over both servers; a returned result over it gets the error.
func TestStreamResultHTTPMaxResponse(t *testing.T) {
	const limit = 64 << 10
	for name, h := range streamTargets(t, dispatch.Options{MaxResponse: limit}) {
		_, body, err := h.postRaw(`{"jsonrpc":"2.0","method":"blob","params":[3000000],"id":5}`)
		var r struct{ Result string }
		if err != nil || json.Unmarshal(body, &r) != nil || r.Result != strings.Repeat("x", 3000000) {
			t.Fatalf("%s blob: %v, %d bytes", name, err, len(body))
		}
		_, body, _ = h.postRaw(`{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("z", limit) + `"],"id":6}`)
		if !bytes.Contains(body, []byte(`"id":6,"error":{"code":-32000,"message":"Response too large"`)) {
			t.Fatalf("%s echo over MaxResponse: %.200s", name, body)
		}
	}
}

// TestStreamResultHTTPDisconnect: a client that goes away mid-stream ends
// the handler on both servers.
func TestStreamResultHTTPDisconnect(t *testing.T) {
	ended := make(chan error, 2)
	for name, h := range streamTargets(t, dispatch.Options{}, streamtest.Forever(ended)) {
		resp, err := h.client.Post(h.url, "application/json", strings.NewReader(streamtest.Call("stream_forever", 1)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(resp.Body, make([]byte, 100<<10)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		resp.Body.Close() // closes the connection: the body was not read to its end
		select {
		case <-ended:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: handler still streaming after the client left", name)
		}
	}
}

// TestStreamResultHTTPGzip: a streamed result is gzip-coded on the fly
// on both servers when the client accepts it (Go's transport asks and
// inflates: resp.Uncompressed), plain when it does not; a coded stream cut
// off still fails the client's read.
func TestStreamResultHTTPGzip(t *testing.T) {
	for name, h := range streamTargets(t, dispatch.Options{}) {
		const n = 3000000
		call := `{"jsonrpc":"2.0","method":"blob","params":[3000000],"id":5}`
		for _, accept := range []string{"", "identity"} {
			req, err := http.NewRequest("POST", h.url, strings.NewReader(call))
			if err != nil {
				t.Fatal(err)
			}
			if accept != "" {
				req.Header.Set("Accept-Encoding", accept)
			}
			resp, err := h.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			var r struct{ Result string }
			if err != nil || json.Unmarshal(body, &r) != nil || len(r.Result) != n || strings.Trim(r.Result, "x") != "" {
				t.Fatalf("%s %q: %v, %d bytes", name, accept, err, len(body))
			}
			if gz := accept == ""; resp.Uncompressed != gz || (!gz && resp.Header.Get("Content-Encoding") != "") {
				t.Errorf("%s %q: gzip-coded %v (Content-Encoding %q)", name, accept, resp.Uncompressed, resp.Header.Get("Content-Encoding"))
			}
			if v := resp.Header.Get("Vary"); !strings.Contains(v, "Accept-Encoding") {
				t.Errorf("%s %q: Vary %q", name, accept, v)
			}
		}
		for i, sc := range streamtest.Cases {
			if !sc.Cut {
				continue
			}
			if _, body, err := h.postRaw(streamtest.Call(sc.Method, i+1)); err == nil {
				t.Fatalf("%s %s: a coded stream cut off read whole: %.100s", name, sc.Method, body)
			}
		}
	}
}
