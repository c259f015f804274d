package guard_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// Options.Challenge builds the 401's WWW-Authenticate from the
// authenticator's error, and Options.Public paths are served to GET and
// HEAD without a credential (POST to them still needs one), on the
// fasthttp server and on the net/http adapter alike.
func TestChallengeAndPublic(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	tokens, err := auth.ParseTokens(strings.NewReader("alice alice-token-0123456789\n"))
	if err != nil {
		t.Fatal(err)
	}
	g := guard.New(&guard.Options{Auth: tokens, Public: []string{"/meta"},
		Challenge: func(dst []byte, err error) []byte {
			dst = append(dst, `Bearer resource_metadata="http://x/meta"`...)
			if !errors.Is(err, auth.ErrNoCredentials) {
				dst = append(dst, `, error="invalid_token", error_description="`+auth.Reason(err)+`"`...)
			}
			return dst
		}})
	opts := &netserver.Options{Guard: g, Documents: map[string]func() ([]byte, error){
		"/meta":    func() ([]byte, error) { return []byte(`{"resource":"x"}`), nil },
		"/private": func() ([]byte, error) { return []byte(`{"secret":1}`), nil },
	}}
	fast := nethttp.New(e, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go fast.Serve(ln)
	defer fast.Shutdown(context.Background())
	std := httptest.NewServer(nethttp.Handler(e, opts))
	defer std.Close()

	for name, base := range map[string]string{"fasthttp": "http://" + ln.Addr().String(), "net/http": std.URL} {
		do := func(method, path, token, wantStatus, wantChallenge string) {
			t.Helper()
			var body io.Reader
			if method == "POST" {
				body = strings.NewReader(`{"jsonrpc":"2.0","method":"echo","params":[1],"id":1}`)
			}
			req, _ := http.NewRequest(method, base+path, body)
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if got := resp.Status[:3]; got != wantStatus {
				t.Errorf("%s %s %s (token %q): status %s, want %s", name, method, path, token, got, wantStatus)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != wantChallenge {
				t.Errorf("%s %s %s (token %q): WWW-Authenticate %q, want %q", name, method, path, token, got, wantChallenge)
			}
		}
		do("POST", "/", "", "401", `Bearer resource_metadata="http://x/meta"`)
		do("POST", "/", "wrong-token-0123456789", "401", `Bearer resource_metadata="http://x/meta", error="invalid_token", error_description="unknown token"`)
		do("POST", "/", "alice-token-0123456789", "200", "")
		do("GET", "/meta", "", "200", "")
		do("HEAD", "/meta", "", "200", "")
		do("POST", "/meta", "", "401", `Bearer resource_metadata="http://x/meta"`)
		do("GET", "/private", "", "401", `Bearer resource_metadata="http://x/meta"`)
		do("GET", "/private", "alice-token-0123456789", "200", "")
	}
}
