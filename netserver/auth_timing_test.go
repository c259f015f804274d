package netserver

import (
	"bytes"
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/frame"
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
		{"auth", func() *Options { return &Options{Auth: testAuth(b)} }},
		{"rate", func() *Options { return &Options{RateLimit: 1e12, RateBurst: 1 << 30} }},
		{"auth+rate", func() *Options { return &Options{Auth: testAuth(b), RateLimit: 1e12, RateBurst: 1 << 30} }},
	}
	const calls = 1000
	for _, v := range variants {
		b.Run("stream/"+v.name, func(b *testing.B) {
			opts := v.opts()
			s := newServer(b, opts, authSetup(b)...)
			defer s.Shutdown(context.Background())
			var stream []byte
			if opts.Auth != nil {
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
	variants = append(variants, variant{"auth-jwt-each-request", func() *Options { return &Options{Auth: testAuth(b)} }})
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
			var ctx fasthttp.RequestCtx
			ctx.Init2(hc, nil, false)
			ctx.Request.Header.SetMethod(fasthttp.MethodPost)
			ctx.Request.SetBodyString(`{"jsonrpc":"2.0","method":"whoami_inline","id":1}`)
			jwts := v.name == "auth-jwt-each-request"
			if opts.Auth != nil && !jwts {
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
					hc.auth.id = nil // a new token each time: no reuse
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

// BenchmarkGateParts times the pieces of the gate on their own, which a
// loaded machine measures more steadily than whole requests: what a
// message's calls are counted with, a bucket's take (with its clock read),
// an HTTP request's reuse of its connection's identity, and one inline
// call through the engine with and without the rules.
func BenchmarkGateParts(b *testing.B) {
	call := []byte(`{"jsonrpc":"2.0","method":"whoami_inline","params":[1,2],"id":1}`)
	batch := []byte(`[` + strings.Repeat(string(call)+",", 9) + string(call) + `]`)
	b.Run("countCalls/call", func(b *testing.B) {
		for range b.N {
			countCalls(call)
		}
	})
	b.Run("countCalls/batch10", func(b *testing.B) {
		for range b.N {
			countCalls(batch)
		}
	})
	b.Run("bucket/allow", func(b *testing.B) {
		cs := newClients(&Options{RateLimit: 1e12, RateBurst: 1 << 30})
		bk := cs.get(clientKey{name: "a"}, time.Now())
		b.ReportAllocs()
		for range b.N {
			bk.allow(time.Now(), 1)
		}
	})
	b.Run("http/identity-reused", func(b *testing.B) {
		s := NewHTTP(newEngine(b), &Options{Auth: testAuth(b), Logger: quiet})
		a, c := net.Pipe()
		defer a.Close()
		defer c.Close()
		hc := &httpConn{Conn: a, set: &s.conns, lim: &s.lim}
		hc.ctx = withOrigin(s.ctx, s.e, HTTP, a.RemoteAddr())
		var ctx fasthttp.RequestCtx
		ctx.Init2(hc, nil, false)
		ctx.Request.Header.Set("Authorization", "Bearer "+aliceToken)
		b.ReportAllocs()
		for range b.N {
			if _, ok := s.authenticateFast(&ctx, hc, &hc.auth); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("http/token-checked", func(b *testing.B) { // the first request of a connection
		s := NewHTTP(newEngine(b), &Options{Auth: testAuth(b), Logger: quiet})
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.Set("Authorization", "Bearer "+aliceToken)
		st := new(httpAuth)
		b.ReportAllocs()
		for range b.N {
			st.id = nil
			if _, ok := s.authenticateFast(&ctx, nil, st); !ok {
				b.Fatal("refused")
			}
		}
	})
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
