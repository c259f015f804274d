package dispatch

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/bytedance/sonic"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
)

// binder binds raw params to a value of one type, analysed once by Typed.
type binder struct {
	typ    reflect.Type // P
	ptr    bool         // P is *struct: allocate the struct
	fields []field      // struct P: exported fields in declaration order
	kind   bindKind
}

type bindKind uint8

const (
	bindWhole  bindKind = iota // sonic.Unmarshal the params into P
	bindStruct                 // field by field, by name or by position
	bindSingle                 // a one-element array binds its element
)

type field struct {
	name  string
	index []int
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

func newBinder[P any]() *binder {
	t := reflect.TypeFor[P]()
	b := &binder{typ: t}
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
func (b *binder) bind(params []byte, p any) error {
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

func (b *binder) bindSingle(it *decode.Iter, v reflect.Value) error {
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

func (b *binder) bindPositional(it *decode.Iter, v reflect.Value) error {
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

func (b *binder) bindNamed(it *decode.Iter, v reflect.Value) error {
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

// paramError turns a binding error into -32602 with data naming the parameter.
func paramError(index int, name string, err error) error {
	if err == nil {
		return nil
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return invalidParams(index, name, strings.TrimSpace(msg))
}

// invalidParams builds -32602 with data {"index":i,"param":name,"error":problem};
// index < 0 and an empty name are left out.
func invalidParams(index int, name, problem string) error {
	data := []byte{'{'}
	if index >= 0 {
		data = append(data, `"index":`...)
		data = strconv.AppendInt(data, int64(index), 10)
		data = append(data, ',')
	}
	if name != "" {
		data = append(data, `"param":`...)
		data = encode.AppendString(data, name)
		data = append(data, ',')
	}
	data = append(data, `"error":`...)
	data = encode.AppendString(data, problem)
	data = append(data, '}')
	return NewError(encode.CodeInvalidParams, encode.CodeInvalidParams.String(), data)
}

func quoteText(s string) []byte { return encode.AppendString(nil, s) }
