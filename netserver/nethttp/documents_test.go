package nethttp_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// TestDocuments: Options.Documents answers GET and HEAD of its paths on
// both HTTP servers; POST stays JSON-RPC, other paths 405.
func TestDocuments(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	docs := map[string]func() ([]byte, error){
		"/doc.json": func() ([]byte, error) { return []byte(`{"a":1}`), nil },
		"/bad.json": func() ([]byte, error) { return nil, errors.New("no document") },
	}
	opts := &netserver.Options{Documents: docs}
	srv := nethttp.New(e, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	std := httptest.NewServer(nethttp.Handler(e, opts))
	defer std.Close()
	for _, base := range []string{"http://" + ln.Addr().String(), std.URL} {
		f := func(method, path, body string, status int, want string) {
			t.Helper()
			req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != status || !strings.Contains(string(got), want) {
				t.Errorf("%s %s%s: %d %q, want %d %q", method, base, path, resp.StatusCode, got, status, want)
			}
			if status == 200 && method != http.MethodPost && resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%s %s: Content-Type %q", method, path, resp.Header.Get("Content-Type"))
			}
		}
		f(http.MethodGet, "/doc.json", "", 200, `{"a":1}`)
		f(http.MethodHead, "/doc.json", "", 200, "")
		f(http.MethodGet, "/bad.json", "", 500, "no document")
		f(http.MethodGet, "/other.json", "", 405, "")
		f(http.MethodPost, "/doc.json", `{"jsonrpc":"2.0","method":"x","id":1}`, 200, `"code":-32601`)
	}
}
