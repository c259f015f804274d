package netserver

import (
	"bytes"
	"context"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/valyala/fasthttp"
)

// BenchmarkGate measures what authentication, the rules and the rate
// limit cost per call, beside the plain path, on a stream connection
// (ServeStdio over an in-memory stream of 1000 inline calls, authenticated
// once) and on HTTP (HTTPServer.Handler on one keep-alive connection).
func BenchmarkGate(b *testing.B) {
	type variant struct {
		name string
		opts func() *Options
	}
	variants := []variant{
		{"plain", func() *Options { return &Options{} }},
		{"auth", func() *Options { return &Options{Guard: guard.New(&guard.Options{Auth: testAuth(b)})} }},
		{"rate", func() *Options {
			return &Options{Guard: guard.New(&guard.Options{RateLimit: 1e12, RateBurst: 1 << 30})}
		}},
		{"auth+rate", func() *Options {
			return &Options{Guard: guard.New(&guard.Options{Auth: testAuth(b), RateLimit: 1e12, RateBurst: 1 << 30})}
		}},
	}
	const calls = 1000
	for _, v := range variants {
		b.Run("stream/"+v.name, func(b *testing.B) {
			opts := v.opts()
			s := newServer(b, opts, authSetup(b)...)
			defer s.Shutdown(context.Background())
			var stream []byte
			if opts.Guard != nil && opts.Guard.Authenticates() {
				stream = frame.AppendFrame(stream, frame.NDJSON, []byte(authCall(aliceToken)))
			}
			for i := range calls {
				stream = frame.AppendFrame(stream, frame.NDJSON,
					[]byte(`{"jsonrpc":"2.0","method":"whoami_inline","id":`+strconv.Itoa(i)+`}`))
			}
			var in bytes.Reader
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				in.Reset(stream)
				if err := s.ServeStdio(&in, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
		})
	}
	variants = append(variants, variant{"auth-jwt-each-request", func() *Options { return &Options{Guard: guard.New(&guard.Options{Auth: testAuth(b)})} }})
	for _, v := range variants {
		b.Run("http/"+v.name, func(b *testing.B) {
			opts := v.opts()
			opts.Logger = quiet
			s := NewHTTP(newEngine(b, authSetup(b)...), opts)
			a, c := net.Pipe()
			defer a.Close()
			defer c.Close()
			hc := &httpConn{Conn: a, set: &s.conns, lim: &s.lim}
			hc.ctx = withOrigin(s.ctx, s.e, HTTP, a.RemoteAddr())
			hc.admitConn()
			var ctx fasthttp.RequestCtx
			ctx.Init2(hc, nil, false)
			ctx.Request.Header.SetMethod(fasthttp.MethodPost)
			ctx.Request.SetBodyString(`{"jsonrpc":"2.0","method":"whoami_inline","id":1}`)
			jwts := v.name == "auth-jwt-each-request"
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

// BenchmarkGateParts times one inline call through the engine with and
// without the rules (package guard's BenchmarkGuardParts times the guard's
// own pieces).
func BenchmarkGateParts(b *testing.B) {
	call := []byte(`{"jsonrpc":"2.0","method":"whoami_inline","params":[1,2],"id":1}`)
	for _, rules := range []bool{false, true} {
		name := "engine/inline-call"
		setup := []engineSetup{whoami("whoami_inline", true)}
		if rules {
			name += "+rules"
			setup = authSetup(b)
		}
		b.Run(name, func(b *testing.B) {
			e := newEngine(b, setup...)
			ctx := auth.WithIdentity(context.Background(), &auth.Identity{Name: "alice", Scheme: "bearer"})
			out := make([]byte, 0, 256)
			b.ReportAllocs()
			for range b.N {
				out = e.ProcessContext(ctx, out[:0], call)
			}
		})
	}
}
