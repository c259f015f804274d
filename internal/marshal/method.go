package marshal

import (
	"encoding"
	"encoding/json"
	"reflect"
	"unsafe"

	"github.com/jetrpc/jetrpc/encode"
)

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	numberType        = reflect.TypeFor[json.Number]()
)

// methodEnc returns the encoder of t when encoding/json would call its
// MarshalJSON or MarshalText method (newTypeEncoder's order: MarshalJSON,
// then MarshalText; a pointer-receiver method only for an addressable
// value), or nil. Pointers get none: ptrEnc handles nil ("null", as
// encoding/json does for a nil pointer Marshaler) and the element, which is
// addressable, gets the method.
func methodEnc(t reflect.Type, addr bool) encFunc {
	pt := reflect.PointerTo(t)
	switch {
	case t.Kind() == reflect.Pointer:
		return nil
	case t.Kind() == reflect.Interface:
		return ifaceMethodEnc(t)
	case t == rawMessageType:
		return rawEnc
	case pt.Implements(marshalerType) && (addr || t.Implements(marshalerType)):
		return marshalerEnc(t)
	case pt.Implements(textMarshalerType) && (addr || t.Implements(textMarshalerType)):
		return textEnc(t)
	}
	return nil
}

// methodAt returns tmpl, an interface value holding a pointer type, with
// that pointer replaced by p. It calls a method of the value at p without
// reflect and without boxing: methods of T are in the method set of *T, so
// the template holds a nil *T.
func methodAt[I any](tmpl I, p unsafe.Pointer) I {
	(*[2]unsafe.Pointer)(unsafe.Pointer(&tmpl))[1] = p
	return tmpl
}

// ptrTemplate returns a nil *T as an I.
func ptrTemplate[I any](t reflect.Type) I {
	return reflect.Zero(reflect.PointerTo(t)).Interface().(I)
}

// marshalerEnc calls MarshalJSON of the T at p and appends its compacted
// output. The method allocates what it returns.
func marshalerEnc(t reflect.Type) encFunc {
	tmpl := ptrTemplate[json.Marshaler](t)
	return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
		return appendMarshalJSON(dst, methodAt(tmpl, p), t)
	}
}

func appendMarshalJSON(dst []byte, m json.Marshaler, t reflect.Type) ([]byte, error) {
	b, err := m.MarshalJSON()
	if err != nil {
		return dst, &Error{Type: t, Reason: reasonMarshalJSON, Err: err}
	}
	out, ok := compact(dst, b)
	if !ok {
		return dst, &Error{Type: t, Reason: reasonInvalidJSON}
	}
	return out, nil
}

// rawEnc is json.RawMessage's MarshalJSON and the compaction after it,
// without the call: nil is null, anything else must be valid JSON (an
// empty non-nil RawMessage is an error, as in encoding/json).
func rawEnc(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
	b := *(*[]byte)(p)
	if b == nil {
		return append(dst, "null"...), nil
	}
	out, ok := compact(dst, b)
	if !ok {
		return dst, errRawMessage
	}
	return out, nil
}

var errRawMessage = &Error{Type: rawMessageType, Reason: reasonInvalidJSON}

// textEnc calls MarshalText of the T at p and appends it as a JSON string.
func textEnc(t reflect.Type) encFunc {
	tmpl := ptrTemplate[encoding.TextMarshaler](t)
	return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
		return appendMarshalText(dst, methodAt(tmpl, p), t)
	}
}

func appendMarshalText(dst []byte, m encoding.TextMarshaler, t reflect.Type) ([]byte, error) {
	b, err := m.MarshalText()
	if err != nil {
		return dst, &Error{Type: t, Reason: reasonMarshalText, Err: err}
	}
	return encode.AppendStringBytes(dst, b), nil
}

// ifaceMethodEnc encodes a value of an interface type that has MarshalJSON
// (or MarshalText) in its method set, as encoding/json does: nil is null,
// else the method of the dynamic value is called, whatever the dynamic type
// (even a nil pointer). Other interfaces return nil (ifaceEnc).
func ifaceMethodEnc(t reflect.Type) encFunc {
	isJSON := t.Implements(marshalerType)
	if !isJSON && !t.Implements(textMarshalerType) {
		return nil
	}
	return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
		x := reflect.NewAt(t, p).Elem().Interface()
		switch {
		case x == nil:
			return append(dst, "null"...), nil
		case isJSON:
			return appendMarshalJSON(dst, x.(json.Marshaler), reflect.TypeOf(x))
		}
		return appendMarshalText(dst, x.(encoding.TextMarshaler), reflect.TypeOf(x))
	}
}
