//go:build !race

package gateway_test

import (
	"context"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/gateway"
)

// TestForwardAllocs: a forwarded call, a forwarded call with an id of
// another kind, and a cache hit allocate nothing in steady state (an
// in-process upstream over TCP).
func TestForwardAllocs(t *testing.T) {
	u := newUpstream(t, "a")
	g := group(t, "a", []string{"*"}, u)
	store := newMemStore()
	e := engine(t, newGateway(t, &gateway.Options{Default: g, Cache: store, CachePolicy: methodPolicy{"eth_chainId": 1e9}}))
	dst := make([]byte, 0, 256)
	f := func(name, msg, want string) {
		t.Helper()
		in := []byte(msg)
		run := func() {
			dst = e.Process(dst[:0], in)
		}
		run()
		if string(dst) != want {
			t.Fatalf("%s: got %s, want %s", name, dst, want)
		}
		if n := testing.AllocsPerRun(2000, run); n != 0 {
			t.Errorf("%s: %v allocs per forwarded call, want 0", name, n)
		}
	}
	f("call", `{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}`, `{"jsonrpc":"2.0","id":1,"result":19}`)
	f("string id", `{"jsonrpc":"2.0","id":"a\u0041","method":"echo","params":[1,2]}`, `{"jsonrpc":"2.0","id":"a\u0041","result":[1,2]}`)
	f("cache hit", `{"jsonrpc":"2.0","id":3,"method":"eth_chainId"}`, `{"jsonrpc":"2.0","id":3,"result":"a"}`)
	if n := u.count("eth_chainId"); n != 1 {
		t.Errorf("eth_chainId reached the upstream %d times, want 1", n)
	}
}

// TestForwardTimeoutAllocs: with a timeout (jetrpc proxy's default is
// 30s), a forwarded call still allocates nothing: on the worker path
// (Engine.Process, as over HTTP) and on the asynchronous one (a client
// over TCP through netserver, the whole round trip counted).
func TestForwardTimeoutAllocs(t *testing.T) {
	u := newUpstream(t, "a")
	g := group(t, "a", []string{"*"}, u)
	e := engine(t, newGateway(t, &gateway.Options{Default: g, Timeout: 30 * time.Second}))
	dst := make([]byte, 0, 256)
	in := []byte(`{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}`)
	run := func() { dst = e.Process(dst[:0], in) }
	run()
	if want := `{"jsonrpc":"2.0","id":1,"result":19}`; string(dst) != want {
		t.Fatalf("got %s, want %s", dst, want)
	}
	if n := testing.AllocsPerRun(2000, run); n != 0 {
		t.Errorf("worker path: %v allocs per forwarded call, want 0", n)
	}

	_, addr := serveTCP(t, e)
	c := dialTCP(t, addr)
	ctx := context.Background()
	params := []byte(`[42,23]`)
	call := func() {
		var err error
		if dst, err = c.CallRaw(ctx, dst[:0], "subtract", params); err != nil || string(dst) != "19" {
			t.Fatalf("got %s %v", dst, err)
		}
	}
	for range 100 {
		call()
	}
	if n := testing.AllocsPerRun(2000, call); n != 0 {
		t.Errorf("async path over TCP: %v allocs per forwarded call, want 0", n)
	}
}
