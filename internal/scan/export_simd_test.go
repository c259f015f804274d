//go:build goexperiment.simd && amd64

package scan

import "simd/archsimd"

// SIMD levels for SetSIMD.
const (
	Portable = 0
	AVX2     = 1
	AVX512   = 2
)

// SetSIMD selects the portable code, the AVX2 lanes or the AVX-512 lanes, as far as the CPU
// has them, and returns the level that was selected before and the one now selected, for the
// differential tests of simd_test.go.
func SetSIMD(level int) (was, now int) {
	was = Portable
	if simdOn {
		was = AVX2
		if avx512 {
			was = AVX512
		}
	}
	simdOn = level >= AVX2 && archsimd.X86.AVX2()
	avx512 = level >= AVX512 && archsimd.X86.AVX512()
	now = Portable
	if simdOn {
		now = AVX2
		if avx512 {
			now = AVX512
		}
	}
	return was, now
}

// SetBlockAll makes walk check every compact block with three structural bytes or more on
// its masks (on), or only those with six or more (off, as it does outside the tests), and
// returns the setting before.
func SetBlockAll(on bool) (was bool) {
	was = blockAll != 0
	blockAll = 0
	if on {
		blockAll = 1
	}
	return was
}
