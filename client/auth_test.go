package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/jwtauth"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/jwtmint"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

const testToken = "ops-token-0123456789abcdef"

func testSecret() []byte {
	s := make([]byte, 32)
	for i := range s {
		s[i] = byte(i)
	}
	return s
}

// authServer is a demo server that wants a JWT (testSecret) or testToken
// on TCP and HTTP (and the WebSocket upgrade), as jetrpc serve
// --jwt-secret --tokens does.
type authServer struct{ tcp, http, ws string }

func startAuth(t *testing.T) authServer {
	t.Helper()
	ja, err := jwtauth.New(testSecret(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := auth.ParseTokens(strings.NewReader("ops " + testToken + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	g := guard.New(&guard.Options{Auth: auth.Any(ja, tk)})
	opts := &netserver.Options{Logger: quiet, Guard: g}
	e := newEngine(t)
	ts, hs := netserver.New(e, opts), nethttp.New(e, opts)
	var addrs [2]string
	for i, srv := range []interface{ Serve(net.Listener) error }{ts, hs} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addrs[i] = ln.Addr().String()
		go srv.Serve(ln)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		ts.Shutdown(ctx)
		hs.Shutdown(ctx)
	})
	return authServer{tcp: addrs[0], http: "http://" + addrs[1] + "/", ws: "ws://" + addrs[1] + "/ws"}
}

// staleJWT gives a JWT made two minutes ago.
func staleJWT() client.TokenFunc {
	m, _ := jwtmint.New(testSecret())
	return func(_ context.Context, dst []byte) ([]byte, error) {
		return m.Append(dst, time.Now().Add(-2*time.Minute)), nil
	}
}

// TestCredentials: a client with a JWT (fresh iat each request) or a
// bearer token calls a server that wants one over HTTP, WebSocket and TCP;
// a missing, wrong or stale credential is a clear error with the server's
// reason.
func TestCredentials(t *testing.T) {
	checkGoroutines(t)
	s := startAuth(t)
	jwt, err := client.JWT(testSecret())
	if err != nil {
		t.Fatal(err)
	}
	wrong, _ := client.JWT(make([]byte, 32))
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	dial := func(kind string, tok client.TokenFunc) (*client.Client, error) {
		o := testOptions(&client.Options{Token: tok})
		switch kind {
		case "http":
			return client.DialHTTP(s.http, o)
		case "ws":
			return client.DialWebSocket(ctx, s.ws, o)
		}
		return client.Dial(ctx, "tcp", s.tcp, o)
	}
	for _, kind := range []string{"http", "ws", "tcp"} {
		for _, tok := range []client.TokenFunc{jwt, client.BearerToken(testToken)} {
			c, err := dial(kind, tok)
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			for range 3 {
				if res, err := c.CallRaw(ctx, nil, "subtract", []byte(`[42,23]`)); err != nil || string(res) != "19" {
					t.Errorf("%s: %s %v", kind, res, err)
				}
			}
			c.Close()
		}
		f := func(what string, tok client.TokenFunc, want string) {
			t.Helper()
			c, err := dial(kind, tok)
			if err == nil {
				_, err = c.CallRaw(ctx, nil, "subtract", []byte(`[42,23]`))
				c.Close()
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s: %v, want an error with %q", kind, what, err, want)
			}
			var he *client.HTTPError
			var re *encode.Error
			switch kind {
			case "http":
				if !errors.As(err, &he) || he.StatusCode != 401 {
					t.Errorf("%s %s: %v, want an *HTTPError 401", kind, what, err)
				}
			case "ws":
				if !errors.Is(err, client.ErrBadHandshake) || !strings.Contains(err.Error(), "401") {
					t.Errorf("%s %s: %v, want ErrBadHandshake 401", kind, what, err)
				}
			case "tcp":
				if tok != nil && (!errors.Is(err, client.ErrUnauthenticated) || !errors.As(err, &re) || re.Code != -32006) {
					t.Errorf("%s %s: %v, want ErrUnauthenticated -32006", kind, what, err)
				}
			}
		}
		f("wrong secret", wrong, "invalid token")
		f("stale", staleJWT(), "stale token")
		f("unknown token", client.BearerToken("not-a-token-0123456789"), "invalid token")
		if kind != "tcp" {
			f("none", nil, "missing credentials")
		}
	}
}

// TestHeaders: static header lines and the Authorization line go with
// every HTTP request and WebSocket handshake; a bad line is an error.
func TestHeaders(t *testing.T) {
	checkGoroutines(t)
	got := make(chan http.Header, 10)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":1}`))
	}))
	defer hs.Close()
	o := testOptions(&client.Options{Header: []string{"X-Api-Key: k1", "X-Other:  two "}, Token: client.BearerToken("tok")})
	c, err := client.DialHTTP(hs.URL, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallRaw(context.Background(), nil, "m", nil); err != nil {
		t.Fatal(err)
	}
	h := <-got
	if h.Get("X-Api-Key") != "k1" || h.Get("X-Other") != "two" || h.Get("Authorization") != "Bearer tok" {
		t.Errorf("headers %v", h)
	}
	for _, bad := range []string{"no colon", "X-A: b\r\nX-B: c", ": empty"} {
		if _, err := client.DialHTTP(hs.URL, &client.Options{Header: []string{bad}}); err == nil {
			t.Errorf("header %q accepted", bad)
		}
	}
}
