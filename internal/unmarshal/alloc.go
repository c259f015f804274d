package unmarshal

// NOTE: unsafe is used in this internal package only, to allocate typed
// memory and to write decoded values through field offsets without reflect.
// Every pointer store goes through a typed Go assignment (*(*T)(p) = v), so
// the compiler emits the write barriers the garbage collector needs.

import (
	"reflect"
	"unsafe"
)

//go:linkname unsafe_New reflect.unsafe_New
func unsafe_New(rtype unsafe.Pointer) unsafe.Pointer

//go:linkname unsafe_NewArray reflect.unsafe_NewArray
func unsafe_NewArray(rtype unsafe.Pointer, n int) unsafe.Pointer

type iface struct {
	tab  unsafe.Pointer
	data unsafe.Pointer
}

// rtypeOf returns the runtime type descriptor behind t.
func rtypeOf(t reflect.Type) unsafe.Pointer {
	return (*iface)(unsafe.Pointer(&t)).data
}

type sliceHeader struct {
	Data unsafe.Pointer
	Len  int
	Cap  int
}

// emptyBase backs empty, non-nil slices.
var emptyBase uintptr

func add(p unsafe.Pointer, off uintptr) unsafe.Pointer { return unsafe.Add(p, off) }

func b2s(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
