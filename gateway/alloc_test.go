//go:build !race

package gateway_test

import (
	"testing"

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
