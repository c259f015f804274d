//go:build goexperiment.simd && amd64

package scan

// SetSIMD turns the SIMD lanes on or off (when the CPU has AVX2) and returns the old state,
// for the differential tests of simd_test.go.
func SetSIMD(on bool) (was bool) {
	was = simdOn
	simdOn = on && archsimdAVX2()
	return was
}
