package marshal

import (
	"reflect"
	"unsafe"
)

// ifaceEnc encodes an interface value by the encoder of its dynamic type,
// compiled on first sight and cached (values behind an interface are not
// addressable, as in encoding/json). A pointer-shaped dynamic value such as
// a map costs one word of allocation to address it.
func ifaceEnc(t reflect.Type) encFunc {
	return func(dst []byte, p unsafe.Pointer, d int) ([]byte, error) {
		x := reflect.NewAt(t, p).Elem().Interface()
		if x == nil {
			return append(dst, "null"...), nil
		}
		if d >= maxDepth {
			return dst, errTooDeep
		}
		e, err := compile(reflect.TypeOf(x), false)
		if err != nil {
			return dst, err
		}
		data := (*[2]unsafe.Pointer)(unsafe.Pointer(&x))[1]
		if e.direct {
			w := new(unsafe.Pointer)
			*w = data
			data = unsafe.Pointer(w)
		}
		return e.fn(dst, data, d+1)
	}
}
