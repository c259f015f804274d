//go:build goexperiment.simd && amd64

package scan

import (
	"math/rand/v2"
	"testing"
)

// TestClmulXor checks the carry-less prefix XOR against the shifts it replaces.
func TestClmulXor(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 100000; k++ {
		x := r.Uint64()
		switch k % 4 {
		case 1:
			x &= r.Uint64() // sparser
		case 2:
			x = 1 << (k % 64)
		case 3:
			x = ^uint64(0) << (k % 64)
		}
		if got, want := clmulXor(x), prefixXor(x); got != want {
			t.Fatalf("clmulXor(%#x) = %#x, want %#x", x, got, want)
		}
	}
}
