package gateway_test

import (
	"context"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/gateway"
	"github.com/jetrpc/jetrpc/gateway/cache"
)

// inlineFixture is a gateway with a Memory cache for eth_chainId and echo
// in front of one upstream, and a way to call ForwardInline.
func inlineFixture(t *testing.T, store cache.Store) (*gateway.Gateway, *upstream, func(dst []byte, msg []byte) ([]byte, bool)) {
	u := newUpstream(t, "a")
	gw := newGateway(t, &gateway.Options{Default: group(t, "a", nil, u), Cache: store,
		CachePolicy: methodPolicy{"eth_chainId": time.Minute, "echo": time.Minute, "fail": time.Minute}})
	var p decode.Parser
	return gw, u, func(dst []byte, msg []byte) ([]byte, bool) {
		if _, err := p.Parse(msg); err != nil {
			t.Fatal(err)
		}
		return gw.ForwardInline(context.Background(), dst, &p)
	}
}

// TestForwardInline: a call the Memory cache holds is answered at once
// with the caller's id; a miss, an uncacheable method, a notification, a
// batch and a store that is no cache.Peeker are left to Forward.
func TestForwardInline(t *testing.T) {
	gw, u, inline := inlineFixture(t, cache.NewMemory(nil))
	e := engine(t, gw)
	prefix := []byte("x")
	if out, ok := inline(prefix, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]}`)); ok || string(out) != "x" {
		t.Fatalf("a miss: %s %v", out, ok)
	}
	if got := string(e.Process(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]}`))); got != `{"jsonrpc":"2.0","id":1,"result":"a"}` {
		t.Fatalf("forwarded: %s", got)
	}
	for _, id := range []string{`9007199254740993`, `"a\u0041"`, `null`} {
		out, ok := inline(prefix, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"eth_chainId","params":[5]}`))
		if want := `x{"jsonrpc":"2.0","id":` + id + `,"result":"a"}`; !ok || string(out) != want {
			t.Fatalf("a hit: %s %v, want %s", out, ok, want)
		}
	}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[6]}`, // other params
		`{"jsonrpc":"2.0","id":1,"method":"subtract","params":[5]}`,
		`{"jsonrpc":"2.0","method":"eth_chainId","params":[5]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]}]`,
	} {
		if out, ok := inline(prefix, []byte(msg)); ok || string(out) != "x" {
			t.Errorf("%s: %s %v, want it left to Forward", msg, out, ok)
		}
	}
	if n := u.count("eth_chainId"); n != 1 {
		t.Errorf("eth_chainId reached the upstream %d times, want 1", n)
	}
	if hits := gw.Stats().Routes[0].CacheHits; hits != 3 {
		t.Errorf("%d cache hits counted, want 3", hits)
	}

	// A store that may wait (not a cache.Peeker): never inline.
	gw2, _, inline2 := inlineFixture(t, newMemStore())
	engine(t, gw2).Process(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]}`))
	if out, ok := inline2(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]}`)); ok {
		t.Errorf("a store that is no Peeker answered inline: %s", out)
	}
}
