package marshal

import (
	"reflect"
	"unsafe"
)

type isZeroer interface{ IsZero() bool }

var isZeroerType = reflect.TypeFor[isZeroer]()

// zeroFunc is encoding/json's omitzero test for a field of type t: the
// type's IsZero method if it has one (a pointer-receiver one on a copy when
// the field is not addressable; a nil pointer or interface is zero without
// the call), else reflect.Value.IsZero.
func zeroFunc(t reflect.Type, addr bool) func(unsafe.Pointer) bool {
	switch {
	case t.Kind() == reflect.Interface && t.Implements(isZeroerType):
		return func(p unsafe.Pointer) bool {
			v := reflect.NewAt(t, p).Elem()
			return v.IsNil() || v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil() ||
				v.Interface().(isZeroer).IsZero()
		}
	case t.Kind() == reflect.Pointer && t.Implements(isZeroerType):
		tmpl := reflect.Zero(t).Interface().(isZeroer)
		return func(p unsafe.Pointer) bool {
			q := *(*unsafe.Pointer)(p)
			return q == nil || methodAt(tmpl, q).IsZero()
		}
	case t.Kind() != reflect.Pointer && !addr && !t.Implements(isZeroerType) &&
		reflect.PointerTo(t).Implements(isZeroerType):
		return func(p unsafe.Pointer) bool {
			v := reflect.New(t)
			v.Elem().Set(reflect.NewAt(t, p).Elem())
			return v.Interface().(isZeroer).IsZero()
		}
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(isZeroerType):
		tmpl := ptrTemplate[isZeroer](t)
		return func(p unsafe.Pointer) bool { return methodAt(tmpl, p).IsZero() }
	}
	return valueZeroFunc(t)
}

// valueZeroFunc is reflect.Value.IsZero for values of t, without reflect
// for the scalar kinds.
func valueZeroFunc(t reflect.Type) func(unsafe.Pointer) bool {
	switch t.Kind() {
	case reflect.String:
		return func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }
	case reflect.Slice:
		return func(p unsafe.Pointer) bool { return (*sliceHeader)(p).data == nil }
	case reflect.Interface:
		return func(p unsafe.Pointer) bool { return *(*unsafe.Pointer)(p) == nil }
	case reflect.Float32:
		return func(p unsafe.Pointer) bool { return *(*float32)(p) == 0 }
	case reflect.Float64:
		return func(p unsafe.Pointer) bool { return *(*float64)(p) == 0 }
	case reflect.Struct, reflect.Array, reflect.Complex64, reflect.Complex128:
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().IsZero() }
	}
	return bytesZeroFunc(t.Size()) // bool, integers, pointer-shaped kinds
}

func bytesZeroFunc(size uintptr) func(unsafe.Pointer) bool {
	return func(p unsafe.Pointer) bool {
		for _, b := range unsafe.Slice((*byte)(p), size) {
			if b != 0 {
				return false
			}
		}
		return true
	}
}
