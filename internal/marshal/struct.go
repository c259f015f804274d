package marshal

import (
	"github.com/jetrpc/jetrpc/internal/jsontag"
	"reflect"
	"strings"
	"unsafe"

	"github.com/jetrpc/jetrpc/encode"
)

// structField is one encoded field: its offset, its key pre-escaped with
// a leading comma (`,"name":`), its encoder and its omitempty test.
type structField struct {
	off   uintptr
	key   []byte
	enc   encFunc
	empty func(p unsafe.Pointer) bool // nil unless omitempty
}

const reasonEmbedded = "embedded fields are not supported yet"

func (c *compiler) structEnc(t reflect.Type, addr bool) (encFunc, error) {
	var fs []structField
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil, &Error{Type: t, Reason: reasonEmbedded}
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !jsontag.Valid(name) {
			name = sf.Name
		}
		enc, err := c.fn(sf.Type, addr)
		if err != nil {
			return nil, err
		}
		f := structField{off: sf.Offset, enc: enc}
		f.key = append(encode.AppendString([]byte{','}, name), ':')
		if jsontag.HasOpt(opts, "omitempty") {
			f.empty = emptyFunc(sf.Type)
		}
		fs = append(fs, f)
	}
	return func(dst []byte, p unsafe.Pointer, d int) ([]byte, error) {
		dst = append(dst, '{')
		first := true
		var err error
		for i := range fs {
			f := &fs[i]
			fp := add(p, f.off)
			if f.empty != nil && f.empty(fp) {
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
	}, nil
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
	size := t.Size() // integers: all bytes zero
	return func(p unsafe.Pointer) bool {
		for _, b := range unsafe.Slice((*byte)(p), size) {
			if b != 0 {
				return false
			}
		}
		return true
	}
}
