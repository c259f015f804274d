package guard

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/valyala/fasthttp"
)

const aliceToken = "alice-token-0123456789"

func tokens(tb testing.TB) auth.Authenticator {
	tb.Helper()
	tk, err := auth.ParseTokens(strings.NewReader("alice " + aliceToken + "\n"))
	if err != nil {
		tb.Fatal(err)
	}
	return tk
}

// BenchmarkGuardParts times the pieces of the guard on their own, which a
// loaded machine measures more steadily than whole requests: what a
// message's calls are counted with, a bucket's take (with its clock read),
// and an HTTP request's reuse of its connection's identity.
func BenchmarkGuardParts(b *testing.B) {
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
		g := New(&Options{Auth: tokens(b)})
		a, c := net.Pipe()
		defer a.Close()
		defer c.Close()
		st := &ConnState{Context: context.Background(), Remote: a.RemoteAddr()}
		var ctx fasthttp.RequestCtx
		ctx.Init2(a, nil, false)
		ctx.Request.Header.Set("Authorization", "Bearer "+aliceToken)
		b.ReportAllocs()
		for range b.N {
			if _, why := g.authenticate(&ctx, st); why != Allowed {
				b.Fatal("refused")
			}
		}
	})
	b.Run("http/token-checked", func(b *testing.B) { // the first request of a connection
		g := New(&Options{Auth: tokens(b)})
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.Set("Authorization", "Bearer "+aliceToken)
		st := &ConnState{Context: context.Background()}
		b.ReportAllocs()
		for range b.N {
			st.id = nil
			if _, why := g.authenticate(&ctx, st); why != Allowed {
				b.Fatal("refused")
			}
		}
	})
}
