package marshal

import (
	"reflect"
	"unsafe"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
	"github.com/jetrpc/jetrpc/internal/scan"
)

// numberEnc writes a json.Number as the literal it holds, "" as 0; a string
// that is not a JSON number is an error, as in encoding/json.
func numberEnc(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
	s := *(*string)(p)
	if s == "" {
		s = "0"
	}
	if !scan.IsNumber(bytesconv.S2B(s)) {
		return dst, errNumber
	}
	return append(dst, s...), nil
}

var errNumber = &Error{Type: numberType, Reason: reasonNumber}

// quotable reports whether the ,string option applies to a field of type t:
// encoding/json quotes bools, numbers and strings, and unnamed pointers to
// them.
func quotable(t reflect.Type) bool {
	if t.Name() == "" && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}

// quotedFn is the encoder of a field of a quotable type with the ,string
// option: the value's JSON inside a JSON string. MarshalJSON and MarshalText
// methods ignore the option, as in encoding/json.
func (c *compiler) quotedFn(t reflect.Type, addr bool) (encFunc, error) {
	if methodEnc(t, addr) != nil {
		return c.fn(t, addr)
	}
	switch {
	case t.Kind() == reflect.Pointer:
		elem, err := c.quotedFn(t.Elem(), true)
		if err != nil {
			return nil, err
		}
		return ptrEnc(elem), nil
	case t == numberType:
		return quote(numberEnc), nil
	case t.Kind() == reflect.String:
		return quotedStringEnc, nil
	}
	return quote(scalarEnc(t.Kind())), nil
}

func quote(enc encFunc) encFunc {
	return func(dst []byte, p unsafe.Pointer, d int) ([]byte, error) {
		dst, err := enc(append(dst, '"'), p, d)
		if err != nil {
			return dst, err
		}
		return append(dst, '"'), nil
	}
}

// quotedStringEnc writes a string as encoding/json's ,string does: the JSON
// string of the JSON string. It escapes in place in dst: the inner string's
// only bytes that need escaping again are its quotes and backslashes.
func quotedStringEnc(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
	n := len(dst)
	dst = encode.AppendString(dst, *(*string)(p))
	m, extra := len(dst), 2
	for _, b := range dst[n:] {
		if b == '"' || b == '\\' {
			extra++
		}
	}
	dst = append(dst, make([]byte, extra)...)
	j := len(dst) - 1
	dst[j] = '"'
	for i := m - 1; i >= n; i-- {
		j--
		dst[j] = dst[i]
		if dst[i] == '"' || dst[i] == '\\' {
			j--
			dst[j] = '\\'
		}
	}
	dst[n] = '"'
	return dst, nil
}
