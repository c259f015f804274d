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
	empty := t.NumMethod() == 0
	return func(dst []byte, p unsafe.Pointer, d int) ([]byte, error) {
		if (*[2]unsafe.Pointer)(p)[0] == nil { // nil: no type word (eface) or itab (iface)
			return append(dst, "null"...), nil
		}
		var x any
		if empty {
			x = *(*any)(p)
		} else {
			x = reflect.NewAt(t, p).Elem().Interface()
		}
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
