package marshal

import (
	"reflect"
	"unsafe"

	"github.com/jetrpc/jetrpc/encode"
)

// structField is one encoded member: where it is (ptrs, the offsets of the
// embedded pointers to follow from the struct, each from the previous
// pointee, then off from the last one), its key pre-escaped with a leading
// comma (`,"name":`), its encoder and its omitempty/omitzero test.
type structField struct {
	ptrs []uintptr
	off  uintptr
	key  []byte
	enc  encFunc
	omit func(p unsafe.Pointer) bool // nil unless omitempty or omitzero
}

// at returns the address of the field in the struct at p, or nil when an
// embedded pointer on the way is nil (encoding/json skips the field then).
func (f *structField) at(p unsafe.Pointer) unsafe.Pointer {
	for _, o := range f.ptrs {
		if p = *(*unsafe.Pointer)(add(p, o)); p == nil {
			return nil
		}
	}
	return add(p, f.off)
}

func (c *compiler) structEnc(t reflect.Type, addr bool) (encFunc, error) {
	specs := fieldSpecs(t)
	fs := make([]structField, 0, len(specs))
	for _, s := range specs {
		f, err := c.field(t, s, addr)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	return func(dst []byte, p unsafe.Pointer, d int) ([]byte, error) {
		return appendFields(dst, fs, p, d)
	}, nil
}

// field compiles one member. A field reached through an embedded pointer is
// addressable whatever the struct is.
func (c *compiler) field(t reflect.Type, s fieldSpec, addr bool) (structField, error) {
	var f structField
	for _, i := range s.index {
		if t.Kind() == reflect.Pointer {
			f.ptrs = append(f.ptrs, f.off)
			f.off, t, addr = 0, t.Elem(), true
		}
		sf := t.Field(i)
		f.off += sf.Offset
		t = sf.Type
	}
	var err error
	if s.quoted {
		f.enc, err = c.quotedFn(t, addr)
	} else {
		f.enc, err = c.fn(t, addr)
	}
	f.key = append(encode.AppendString([]byte{','}, s.name), ':')
	f.omit = omitFunc(t, addr, s.omitEmpty, s.omitZero)
	return f, err
}

func appendFields(dst []byte, fs []structField, p unsafe.Pointer, d int) ([]byte, error) {
	dst = append(dst, '{')
	first := true
	var err error
	for i := range fs {
		f := &fs[i]
		fp := add(p, f.off)
		if f.ptrs != nil {
			if fp = f.at(p); fp == nil {
				continue
			}
		}
		if f.omit != nil && f.omit(fp) {
			continue
		}
		if first {
			dst = append(dst, f.key[1:]...)
			first = false
		} else {
			dst = append(dst, f.key...)
		}
		if dst, err = f.enc(dst, fp, d); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func omitFunc(t reflect.Type, addr, empty, zero bool) func(unsafe.Pointer) bool {
	var e, z func(unsafe.Pointer) bool
	if empty {
		e = emptyFunc(t)
	}
	if zero {
		z = zeroFunc(t, addr)
	}
	switch {
	case e == nil:
		return z
	case z == nil:
		return e
	}
	return func(p unsafe.Pointer) bool { return e(p) || z(p) }
}

// emptyFunc is encoding/json's isEmptyValue for values of t.
func emptyFunc(t reflect.Type) func(unsafe.Pointer) bool {
	switch t.Kind() {
	case reflect.Bool:
		return func(p unsafe.Pointer) bool { return !*(*bool)(p) }
	case reflect.Float32:
		return func(p unsafe.Pointer) bool { return *(*float32)(p) == 0 }
	case reflect.Float64:
		return func(p unsafe.Pointer) bool { return *(*float64)(p) == 0 }
	case reflect.String:
		return func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }
	case reflect.Slice:
		return func(p unsafe.Pointer) bool { return (*sliceHeader)(p).len == 0 }
	case reflect.Pointer, reflect.Interface:
		return func(p unsafe.Pointer) bool { return *(*unsafe.Pointer)(p) == nil }
	case reflect.Map:
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().Len() == 0 }
	case reflect.Array:
		n := t.Len()
		return func(unsafe.Pointer) bool { return n == 0 }
	case reflect.Struct:
		return nil
	}
	return bytesZeroFunc(t.Size()) // integers: all bytes zero
}
