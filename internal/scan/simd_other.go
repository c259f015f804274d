//go:build !(goexperiment.simd && amd64)

package scan

// simdOn is false without GOEXPERIMENT=simd on amd64: the calls to the SIMD lanes below
// are compiled out, and the portable code is all there is (see simd_amd64.go).
const simdOn = false

// walkState is the SIMD lane's state in the Scanner: nothing without it.
type walkState struct{}

func stringBlocks(data []byte, i int) (j int, esc, done bool) { return i, false, false }

func plainBlocks(data []byte, i int) (end, from int) { return 0, i }

func (s *Scanner) walk(data []byte, i, base, depth int, obj bool, st int) (int, int, bool, int) {
	return i, depth, obj, st
}

func (s *Scanner) walkSpaced() bool { return false }
