package nethttp

import (
	"net"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/internal/servertest"
	"github.com/valyala/fasthttp"
)

// BenchmarkGateHTTP measures what authentication, the rules and the rate
// limit cost per call on HTTP (HTTPServer.Handler on one keep-alive
// connection), as netserver's BenchmarkGate does on a stream connection.
func BenchmarkGateHTTP(b *testing.B) {
	variants := servertest.GateVariants(b)
	variants = append(variants, servertest.GateVariant{Name: "auth-jwt-each-request", Guard: func() *guard.Guard { return guard.New(&guard.Options{Auth: testAuth(b)}) }})
	for _, v := range variants {
		b.Run(v.Name, func(b *testing.B) {
			opts := &netserver.Options{Guard: v.Guard(), Logger: quiet}
			s := New(newEngine(b, authSetup(b)...), opts)
			a, c := net.Pipe()
			defer a.Close()
			defer c.Close()
			hc := &httpConn{Conn: a, set: &s.conns, lim: &s.lim}
			hc.ctx = withOrigin(s.ctx, netserver.HTTP, a.RemoteAddr())
			hc.admitConn()
			var ctx fasthttp.RequestCtx
			ctx.Init2(hc, nil, false)
			ctx.Request.Header.SetMethod(fasthttp.MethodPost)
			ctx.Request.SetBodyString(`{"jsonrpc":"2.0","method":"whoami_inline","id":1}`)
			jwts := v.Name == "auth-jwt-each-request"
			if opts.Guard != nil && opts.Guard.Authenticates() && !jwts {
				ctx.Request.Header.Set("Authorization", "Bearer "+aliceToken)
			}
			// A fresh JWT per request, as go-ethereum's client sends: signed
			// beforehand, so that only the server's check is timed.
			var tokens []string
			if jwts {
				for range 1000 {
					tokens = append(tokens, "Bearer "+signJWT(b, -time.Second))
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if jwts {
					ctx.Request.Header.Set("Authorization", tokens[i%len(tokens)])
					hc.guard = guard.ConnState{Context: hc.ctx, Remote: a.RemoteAddr()} // a new token each time: no reuse
				}
				s.Handler(&ctx)
				if ctx.Response.StatusCode() != 200 {
					b.Fatalf("%d %s", ctx.Response.StatusCode(), ctx.Response.Body())
				}
				ctx.Response.Reset()
			}
		})
	}
}
