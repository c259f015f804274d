//go:build unix

package bench_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/auth/oauth"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
)

// mcpAuthAS is an authorization server on loopback with one Ed25519 key,
// and a token it signed for resource with scope mcp.
func mcpAuthAS(tb testing.TB, resource string, jti string) (issuer string, token func(jti string) string) {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	b64 := base64.RawURLEncoding
	var as *httptest.Server
	as = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			json.NewEncoder(w).Encode(map[string]string{"issuer": as.URL, "jwks_uri": as.URL + "/jwks"})
		case "/jwks":
			fmt.Fprintf(w, `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","x":%q}]}`, b64.EncodeToString(priv.Public().(ed25519.PublicKey)))
		default:
			http.NotFound(w, r)
		}
	}))
	tb.Cleanup(as.Close)
	return as.URL, func(jti string) string {
		claims := fmt.Sprintf(`{"iss":%q,"sub":"alice","aud":%q,"scope":"mcp","exp":%d,"jti":%q}`, as.URL, resource,
			time.Now().Add(time.Hour).Unix(), jti)
		input := b64.EncodeToString([]byte(`{"alg":"EdDSA","kid":"k1","typ":"at+jwt"}`)) + "." + b64.EncodeToString([]byte(claims))
		return input + "." + b64.EncodeToString(ed25519.Sign(priv, []byte(input)))
	}
}

// mcpAuthServer serves jetrpc's MCP endpoint at /mcp on an in-memory
// listener, as jetrpc serve --mcp does (netserver's HTTP server, the route,
// the guard), with OAuth (--mcp-auth-issuer, --mcp-scope *=mcp) when
// issuer is set. It returns a client of it.
func mcpAuthServer(tb testing.TB, resource, issuer string) *fasthttp.HostClient {
	s := mcp.New(mcp.Implementation{Name: "bench", Version: "1"}, nil)
	var g guard.Options
	if issuer != "" {
		rules, err := oauth.ParseScopeRules([]string{"*=mcp"})
		if err != nil {
			tb.Fatal(err)
		}
		s = mcp.New(mcp.Implementation{Name: "bench", Version: "1"}, &mcp.Options{Access: rules})
		res, err := oauth.NewResource(oauth.Metadata{Resource: resource, AuthorizationServers: []string{issuer}})
		if err != nil {
			tb.Fatal(err)
		}
		v, err := oauth.New(resource, []string{issuer}, nil)
		if err != nil {
			tb.Fatal(err)
		}
		g.Auth = v
		g.Challenge = func(dst []byte, err error) []byte { return res.AppendUnauthorized(dst, "mcp", err) }
	}
	if err := mcpdemo.Register(s); err != nil {
		tb.Fatal(err)
	}
	h := mcphttp.New(s, &mcphttp.Options{Identity: nethttp.RequestIdentity})
	e := dispatch.New(nil)
	srv := nethttp.New(e, &netserver.Options{Guard: guard.New(&g),
		Routes: map[string]fasthttp.RequestHandler{"/mcp": h.ServeFastHTTP}})
	ln := fasthttputil.NewInmemoryListener()
	go srv.Serve(ln)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		srv.Shutdown(ctx)
		s.Close()
		e.Close()
	})
	return &fasthttp.HostClient{Addr: "mcp", Dial: func(string) (net.Conn, error) { return ln.Dial() }, MaxConns: 1}
}

const mcpEchoCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// BenchmarkMCPAuth measures tools/call echo (2026-07-28, no session) over
// jetrpc's HTTP server on an in-memory connection, one call at a time:
// auth=off; auth=jwt, an Ed25519 JWT access token checked by the OAuth
// validator (the keep-alive connection reuses the identity while the same
// token comes again); auth=jwt-validate, two tokens in turn, so that the
// validator is asked on every call (its cache answers). allocs/op count
// the client's allocations too, the same on each side.
func BenchmarkMCPAuth(b *testing.B) {
	const resource = "http://mcp.bench/mcp"
	issuer, token := mcpAuthAS(b, resource, "")
	clients := map[string]*fasthttp.HostClient{"off": mcpAuthServer(b, resource, ""), "jwt": mcpAuthServer(b, resource, issuer)}
	tokens := []string{"Bearer " + token("a"), "Bearer " + token("b")}
	for _, c := range []struct {
		name   string
		client string
		tokens []string
	}{{"off", "off", nil}, {"jwt", "jwt", tokens[:1]}, {"jwt-validate", "jwt", tokens}} {
		b.Run("auth="+c.name, func(b *testing.B) {
			hc := clients[c.client]
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			req.SetRequestURI("http://mcp/mcp")
			req.Header.SetMethod("POST")
			req.Header.SetContentType("application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "echo")
			req.SetBodyString(mcpEchoCall)
			call := func(i int) {
				if len(c.tokens) > 0 {
					req.Header.Set("Authorization", c.tokens[i%len(c.tokens)])
				}
				if err := hc.Do(req, resp); err != nil || resp.StatusCode() != 200 {
					b.Fatalf("%v %d %s", err, resp.StatusCode(), resp.Body())
				}
			}
			for i := range 100 { // warm: keys fetched, tokens cached, pools filled
				call(i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU()
			for i := 0; b.Loop(); i++ {
				call(i)
			}
			// The process's CPU time (client and server) per call: on a
			// loaded machine steadier than the wall clock.
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU returns the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMCPAuthColdJWKS measures the first call with a token on a
// server that has not fetched its issuer's keys yet: the metadata and the
// JWKS are fetched from a loopback authorization server, then the token is
// verified and the call served.
func BenchmarkMCPAuthColdJWKS(b *testing.B) {
	const resource = "http://mcp.bench/mcp"
	issuer, token := mcpAuthAS(b, resource, "")
	tok := "Bearer " + token("cold")
	for b.Loop() {
		b.StopTimer()
		hc := mcpAuthServer(b, resource, issuer)
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		req.SetRequestURI("http://mcp/mcp")
		req.Header.SetMethod("POST")
		req.Header.SetContentType("application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "echo")
		req.Header.Set("Authorization", tok)
		req.SetBodyString(mcpEchoCall)
		b.StartTimer()
		if err := hc.Do(req, resp); err != nil || resp.StatusCode() != 200 {
			b.Fatalf("%v %d %s", err, resp.StatusCode(), resp.Body())
		}
		b.StopTimer()
		fasthttp.ReleaseRequest(req)
		fasthttp.ReleaseResponse(resp)
		b.StartTimer()
	}
}
