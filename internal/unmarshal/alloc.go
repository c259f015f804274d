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

// The map runtime entry points below are pushed by the runtime for
// linkname (go.dev/issue/67401: "Do not remove or change the type
// signature"). Both return the element slot of key, inserting the key if
// it is new; t is the map's type descriptor (rtypeOf). mapassign copies
// the key it points to, so the pointer does not escape.

//go:linkname mapassign_faststr runtime.mapassign_faststr
func mapassign_faststr(t, m unsafe.Pointer, key string) unsafe.Pointer

//go:linkname mapassign runtime.mapassign
//go:noescape
func mapassign(t, m, key unsafe.Pointer) unsafe.Pointer

// maxFastElem is the largest element the runtime stores in its slot (larger
// ones are stored indirectly, and only the generic mapassign handles them).
const maxFastElem = 128

// storeUint stores the low size bytes of v at p as an unsigned integer of
// that size.
func storeUint(p unsafe.Pointer, size uintptr, v uint64) {
	switch size {
	case 1:
		*(*uint8)(p) = uint8(v)
	case 2:
		*(*uint16)(p) = uint16(v)
	case 4:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
}
