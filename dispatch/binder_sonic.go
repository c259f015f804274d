package dispatch

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/bytedance/sonic"
	"github.com/jetrpc/jetrpc/decode"
)

// sonicBinder is the fallback binder, for a P that internal/unmarshal
// cannot decode (see Typed): the same rules, with sonic doing the decoding
// and reflect the field access, so it allocates per call.
type sonicBinder struct {
	typ    reflect.Type // P
	ptr    bool         // P is *struct: allocate the struct
	fields []field      // struct P: exported fields in declaration order
	kind   bindKind
}

type field struct {
	name  string
	index []int
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

func newSonicBinder[P any]() *sonicBinder {
	t := reflect.TypeFor[P]()
	b := &sonicBinder{typ: t}
	st := t
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		st, b.ptr = t.Elem(), true
	}
	switch {
	case reflect.PointerTo(st).Implements(unmarshalerType) || t.Implements(unmarshalerType):
		b.kind = bindWhole
	case st.Kind() == reflect.Struct:
		b.kind = bindStruct
		b.fields = structFields(st)
	case t.Kind() == reflect.Slice, t.Kind() == reflect.Array, t.Kind() == reflect.Map, t.Kind() == reflect.Interface:
		b.kind = bindWhole
	default:
		b.kind = bindSingle
	}
	return b
}

func structFields(t reflect.Type) []field {
	var fs []field
	for _, sf := range reflect.VisibleFields(t) {
		if !sf.IsExported() || sf.Anonymous {
			continue
		}
		name := sf.Name
		if tag, ok := sf.Tag.Lookup("json"); ok {
			n, _, _ := strings.Cut(tag, ",")
			if n == "-" {
				continue
			}
			if n != "" {
				name = n
			}
		}
		fs = append(fs, field{name: name, index: sf.Index})
	}
	return fs
}

// bind fills *p (p is a *P) from params.
func (b *sonicBinder) bind(params []byte, p any) error {
	if b.kind == bindWhole {
		if len(params) == 0 {
			return nil
		}
		return paramError(-1, "", sonic.Unmarshal(params, p))
	}
	v := reflect.ValueOf(p).Elem()
	if b.ptr { // a *struct P is never nil, even without params
		v.Set(reflect.New(b.typ.Elem()))
		v = v.Elem()
	}
	if len(params) == 0 {
		return nil
	}
	var it decode.Iter
	it.Reset(params)
	if b.kind == bindSingle {
		return b.bindSingle(&it, v)
	}
	if it.IsObject() {
		return b.bindNamed(&it, v)
	}
	return b.bindPositional(&it, v)
}

func (b *sonicBinder) bindSingle(it *decode.Iter, v reflect.Value) error {
	if it.IsObject() {
		return invalidParams(-1, "", "want an array of one value")
	}
	n := 0
	for it.Next() {
		if n++; n > 1 {
			return invalidParams(-1, "", "want an array of one value")
		}
		if err := sonic.Unmarshal(it.Value(), v.Addr().Interface()); err != nil {
			return paramError(0, "", err)
		}
	}
	if n == 0 {
		return invalidParams(-1, "", "want an array of one value")
	}
	return nil
}

func (b *sonicBinder) bindPositional(it *decode.Iter, v reflect.Value) error {
	i := 0
	for ; it.Next(); i++ {
		if i >= len(b.fields) {
			return invalidParams(i, "", "too many params: want at most "+strconv.Itoa(len(b.fields)))
		}
		f := &b.fields[i]
		if err := sonic.Unmarshal(it.Value(), v.FieldByIndex(f.index).Addr().Interface()); err != nil {
			return paramError(i, f.name, err)
		}
	}
	return nil
}

func (b *sonicBinder) bindNamed(it *decode.Iter, v reflect.Value) error {
	for it.Next() {
		for i := range b.fields {
			f := &b.fields[i]
			if !decode.KeyEquals(it.Key(), f.name) {
				continue
			}
			if err := sonic.Unmarshal(it.Value(), v.FieldByIndex(f.index).Addr().Interface()); err != nil {
				return paramError(-1, f.name, err)
			}
			break
		}
	}
	return nil
}
