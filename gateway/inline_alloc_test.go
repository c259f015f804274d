//go:build !race

package gateway_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/gateway/cache"
)

// TestForwardInlineAllocs: a cache hit answered inline allocates nothing.
func TestForwardInlineAllocs(t *testing.T) {
	gw, _, inline := inlineFixture(t, cache.NewMemory(nil))
	engine(t, gw).Process(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]}`))
	dst := make([]byte, 0, 256)
	msg := []byte(`{"jsonrpc":"2.0","id":"q","method":"eth_chainId","params":[5]}`)
	if n := testing.AllocsPerRun(2000, func() {
		var ok bool
		if dst, ok = inline(dst[:0], msg); !ok {
			t.Fatal("a miss")
		}
	}); n != 0 {
		t.Errorf("%v allocs per inline cache hit, want 0", n)
	}
}

// TestForwardInlineBatchAllocs: a batch of cache hits answered inline
// allocates nothing.
func TestForwardInlineBatchAllocs(t *testing.T) {
	gw, _, inline := inlineFixture(t, cache.NewMemory(nil))
	engine(t, gw).Process(nil, []byte(`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]},{"jsonrpc":"2.0","id":2,"method":"echo","params":[7]}]`))
	dst := make([]byte, 0, 256)
	msg := []byte(`[{"jsonrpc":"2.0","id":"q","method":"eth_chainId","params":[5]},{"jsonrpc":"2.0","id":3,"method":"echo","params":[7]}]`)
	if n := testing.AllocsPerRun(2000, func() {
		var ok bool
		if dst, ok = inline(dst[:0], msg); !ok {
			t.Fatal("a miss")
		}
	}); n != 0 {
		t.Errorf("%v allocs per inline batch of cache hits, want 0", n)
	}
}
