package dispatch

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/unmarshal"
)

// binder binds raw params to a value of one type P through the decoder
// program internal/unmarshal compiled for P when Typed was called: no
// reflect, boxing or intermediate buffer per call.
type binder struct {
	dec    *unmarshal.Decoder // P
	fields []unmarshal.Field  // struct P (or *struct P): its members in order
	ptr    bool               // P is *struct: allocate it even without params
	strict bool               // a named param that fills no field is -32602 (StrictParams)
	kind   bindKind
	num    numKind    // a slice of numbers: the fast binder's element kind (binder_num.go)
	raws   bool       // P is []json.RawMessage: one copy of the params, sliced (binder_raw.go)
	ints   []intField // struct P of integers only: params bound without the decoder (binder_num.go)
	intsU  bool       // one of ints is unsigned: a minus sign anywhere sends the params to the decoder
}

type bindKind uint8

const (
	bindWhole  bindKind = iota // decode the params (array or object) into P
	bindStruct                 // object by name, array field by field
	bindSingle                 // a one-element array binds its element
	bindRaw                    // P is json.RawMessage: a copy of the params
)

var (
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// newBinder compiles the binder of P, or returns nil when internal/unmarshal
// cannot decode P (Typed then binds with sonic).
func newBinder[P any]() *binder {
	t := reflect.TypeFor[P]()
	dec, err := unmarshal.Compile(t)
	if err != nil {
		return nil
	}
	b := &binder{dec: dec}
	st := t
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		st, b.ptr = t.Elem(), true
	}
	switch {
	case t == rawMessageType: // the scanner has checked the params already
		b.kind = bindRaw
	case implementsUnmarshaler(t) || implementsUnmarshaler(st):
		b.kind = bindWhole
	case st.Kind() == reflect.Struct:
		b.kind = bindStruct
		sd, err := unmarshal.Compile(st)
		if err != nil {
			return nil
		}
		b.fields = sd.Fields()
		if !b.ptr && !intFieldsOff {
			b.ints, b.intsU = intFieldsOf(b.fields)
		}
	case t.Kind() == reflect.Slice, t.Kind() == reflect.Array, t.Kind() == reflect.Map, t.Kind() == reflect.Interface:
		b.kind = bindWhole
		b.num = numSliceKind(t)
		b.raws = t == rawSliceType
	default:
		b.kind = bindSingle
	}
	return b
}

func implementsUnmarshaler(t reflect.Type) bool {
	return t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType)
}

// emptyObject makes a *struct P non-nil without params.
var emptyObject = []byte("{}")

// bind fills the P at p from params (absent, or an array or object the
// scanner has validated).
func (b *binder) bind(params []byte, p unsafe.Pointer) error {
	switch b.kind {
	case bindWhole:
		if len(params) == 0 || b.num != numNone && b.bindNums(params, p) || b.raws && bindRaws(params, p) {
			return nil
		}
		return paramError(-1, "", b.dec.DecodeValid(params, p))
	case bindSingle:
		return b.bindSingle(params, p)
	case bindRaw:
		if len(params) > 0 {
			*(*json.RawMessage)(p) = bytes.Clone(params)
		}
		return nil
	}
	if b.ptr { // a *struct P is never nil, even without params
		if err := b.dec.DecodeValid(emptyObject, p); err != nil {
			return paramError(-1, "", err)
		}
	}
	if len(params) == 0 {
		return nil
	}
	if b.ints != nil && b.bindIntStruct(params, p) {
		return nil // integers by position or by name, without the decoder (binder_num.go)
	}
	var it decode.Iter
	it.Reset(params)
	if it.IsObject() {
		if b.strict {
			if err := b.checkNames(it); err != nil {
				return err
			}
		}
		return paramError(-1, "", b.dec.DecodeValid(params, p))
	}
	if b.ptr {
		p = *(*unsafe.Pointer)(p)
	}
	return b.bindPositional(&it, p)
}

func (b *binder) bindSingle(params []byte, p unsafe.Pointer) error {
	if len(params) == 0 {
		return nil
	}
	var it decode.Iter
	if !it.Reset(params) || it.IsObject() || !it.Next() {
		return invalidParams(-1, "", "want an array of one value")
	}
	if err := b.dec.DecodeValid(it.Value(), p); err != nil {
		return paramError(0, "", err)
	}
	if it.Next() {
		return invalidParams(-1, "", "want an array of one value")
	}
	return nil
}

// bindPositional decodes element i of the params array into field i of the
// struct at p.
func (b *binder) bindPositional(it *decode.Iter, p unsafe.Pointer) error {
	for i := 0; it.Next(); i++ {
		if i >= len(b.fields) {
			return invalidParams(i, "", "too many params: want at most "+strconv.Itoa(len(b.fields)))
		}
		f := &b.fields[i]
		if err := f.Decoder.DecodeValid(it.Value(), unsafe.Add(p, f.Offset)); err != nil {
			return paramError(i, f.Name, err)
		}
	}
	return nil
}

// paramError turns a binding error into -32602 with data naming the
// parameter: for positional params its index and field name, for named
// params the member the error's path starts with.
func paramError(index int, name string, err error) error {
	if err == nil {
		return nil
	}
	var ue *unmarshal.Error
	if !errors.As(err, &ue) {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		return invalidParams(index, name, strings.TrimSpace(msg))
	}
	path := ue.Path
	if name == "" && index < 0 {
		name, path = splitPath(path)
	}
	if path != "" {
		return invalidParams(index, name, path+": "+ue.Msg)
	}
	return invalidParams(index, name, ue.Msg)
}

// splitPath splits "a.b[2]" into the top-level member "a" and the rest
// "b[2]"; a path that starts with an index has no member.
func splitPath(path string) (string, string) {
	if path == "" || path[0] == '[' {
		return "", path
	}
	i := strings.IndexAny(path, ".[")
	if i < 0 {
		return path, ""
	}
	return path[:i], strings.TrimPrefix(path[i:], ".")
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

// checkNames refuses, for strict params, the first member of the named
// params it (reset, not advanced) that fills no field of P: -32602 with
// data {"param":name,"error":"unknown member"}.
func (b *binder) checkNames(it decode.Iter) error {
	for it.Next() {
		key := it.Key()
		if bytes.IndexByte(key, '\\') >= 0 {
			var buf [64]byte
			q := append(append(append(buf[:0], '"'), key...), '"')
			var err error
			if key, err = decode.AppendUnquote(nil, q); err != nil {
				continue // the scanner validated it: cannot happen
			}
		}
		if unmarshal.Match(b.fields, key) == nil {
			return invalidParams(-1, string(key), "unknown member")
		}
	}
	return nil
}

// strictOf returns h refusing unknown named params when it is a Typed
// handler of a struct (or *struct) P; any other handler unchanged.
func strictOf(h Handler) Handler {
	if s, ok := h.(interface{ strict() Handler }); ok {
		return s.strict()
	}
	return h
}
