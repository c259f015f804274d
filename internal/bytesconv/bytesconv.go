// Package bytesconv holds the project's only unsafe conversions between
// string and []byte. Both are zero-copy: the caller must not modify the bytes
// while the string is in use.
package bytesconv

import "unsafe"

// B2S returns b as a string without copying. b must not be modified while the
// string is alive.
func B2S(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// S2B returns s as a []byte without copying. The result must never be written to.
func S2B(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// Offset returns where sub begins within in, and whether it lies there at
// all (sub empty at in's end counts); it compares addresses only.
func Offset(sub, in []byte) (int, bool) {
	off := uintptr(unsafe.Pointer(unsafe.SliceData(sub))) - uintptr(unsafe.Pointer(unsafe.SliceData(in)))
	if off > uintptr(len(in)) || int(off)+len(sub) > len(in) {
		return 0, false
	}
	return int(off), true
}

// Within returns where sub begins within in, which it must lie within (an
// invariant of the caller's, not checked: Offset checks).
func Within(sub, in []byte) int {
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(sub))) - uintptr(unsafe.Pointer(unsafe.SliceData(in))))
}
