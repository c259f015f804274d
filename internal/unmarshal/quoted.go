package unmarshal

// NOTE: the ",string" tag option as encoding/json applies it. It applies to
// fields of bool, integer, float and string kinds and unnamed pointers to
// them. The JSON value must be a string (or null, decoded as a plain null);
// its unescaped content is then stored as encoding/json's literalStore does
// with fromQuoted: not checked as JSON first, so "-Inf" fits a float,
// "12x" a json.Number, and a string field needs the content to be a quoted
// string itself.

import (
	"encoding"
	"encoding/json"
	"reflect"
	"unsafe"

	"github.com/jetrpc/jetrpc/internal/scan"
)

// quotable reports whether encoding/json applies ",string" to a field of
// kind k (after following an unnamed pointer).
func quotable(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}

// storeFn stores the content of a ",string" value at p, or fails.
type storeFn func(item []byte, p unsafe.Pointer) bool

// quotedDecoder is the decoder of a ",string" field of type t.
func (c *compiler) quotedDecoder(t reflect.Type) (*Decoder, error) {
	plain, err := c.valueDec(t)
	if err != nil {
		return nil, err
	}
	store, name := quotedStore(t), t.String()
	fn := func(data []byte, i int, p unsafe.Pointer, repair bool) (int, error) {
		switch data[i] {
		case 'n':
			return plain.fn(data, i, p, repair)
		case '"':
		default:
			return 0, typeErr("invalid use of ,string: unquoted value into "+name, i)
		}
		s, end, _, err := quoted(data, i, repair)
		if err != nil {
			return 0, err
		}
		if len(s) == 0 || !store(s, p) {
			return 0, typeErr("invalid use of ,string: "+string(data[i:end])+" into "+name, i)
		}
		return end, nil
	}
	return &Decoder{typ: t, fn: fn}, nil
}

func quotedStore(t reflect.Type) storeFn {
	if t.Kind() != reflect.Pointer {
		return quotedElem(t)
	}
	elem, rt := quotedElem(t.Elem()), rtypeOf(t.Elem())
	return func(item []byte, p unsafe.Pointer) bool {
		if item[0] == 'n' { // encoding/json stops at the pointer for a null
			if string(item) != "null" {
				return false
			}
			*(*unsafe.Pointer)(p) = nil
			return true
		}
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			q = unsafe_New(rt)
			*(*unsafe.Pointer)(p) = q
		}
		return elem(item, q)
	}
}

// quotedElem stores into a value of t; its pointer's methods come first.
func quotedElem(t reflect.Type) storeFn {
	pt := reflect.PointerTo(t)
	switch {
	case pt.Implements(unmarshalerType):
		tab := ifaceMaker(t)
		return func(item []byte, p unsafe.Pointer) bool {
			return boxPtr(tab, p).(json.Unmarshaler).UnmarshalJSON(item) == nil
		}
	case pt.Implements(textUnmarshalerType):
		tab := ifaceMaker(t)
		return func(item []byte, p unsafe.Pointer) bool {
			if item[0] == 'n' {
				return string(item) == "null"
			}
			s, ok := unquoteLoose(item)
			return ok && boxPtr(tab, p).(encoding.TextUnmarshaler).UnmarshalText(s) == nil
		}
	}
	return kindStore(t)
}

// kindStore is literalStore's switch on the content's first byte.
func kindStore(t reflect.Type) storeFn {
	k, number, set := t.Kind(), t == numberType, setter(t.Kind())
	return func(item []byte, p unsafe.Pointer) bool {
		switch c := item[0]; {
		case c == 'n':
			return string(item) == "null"
		case c == 't' || c == 'f':
			if k != reflect.Bool || (string(item) != "true" && string(item) != "false") {
				return false
			}
			*(*bool)(p) = c == 't'
		case c == '"':
			s, ok := unquoteLoose(item)
			if !ok || k != reflect.String || (number && !scan.IsNumber(s)) {
				return false
			}
			*(*string)(p) = string(s)
		case c == '-' || isDigit(c):
			if number {
				*(*string)(p) = string(item)
				return true
			}
			return set != nil && set(b2s(item), p)
		default:
			return false
		}
		return true
	}
}

// setter returns the setter of a numeric kind, or nil.
func setter(k reflect.Kind) func(string, unsafe.Pointer) bool {
	switch k {
	case reflect.Int:
		return setInt[int]
	case reflect.Int8:
		return setInt[int8]
	case reflect.Int16:
		return setInt[int16]
	case reflect.Int32:
		return setInt[int32]
	case reflect.Int64:
		return setInt[int64]
	case reflect.Uint:
		return setUint[uint]
	case reflect.Uint8:
		return setUint[uint8]
	case reflect.Uint16:
		return setUint[uint16]
	case reflect.Uint32:
		return setUint[uint32]
	case reflect.Uint64:
		return setUint[uint64]
	case reflect.Uintptr:
		return setUint[uintptr]
	case reflect.Float32:
		return setFloat32
	case reflect.Float64:
		return setFloat64
	}
	return nil
}

// unquoteLoose is encoding/json's unquoteBytes, for the content of a
// ",string" value (which no scanner has checked): s must be a quoted
// string; \' is a valid escape there, and a raw quote or control byte
// is not. The content is UTF-8 already (quoted repaired it).
func unquoteLoose(s []byte) ([]byte, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return nil, false
	}
	s = s[1 : len(s)-1]
	esc := false
	for r := 0; r < len(s); r++ {
		switch c := s[r]; {
		case c == '\\':
			if esc = true; r+1 >= len(s) {
				return nil, false
			}
			switch s[r+1] {
			case '"', '\\', '/', '\'', 'b', 'f', 'n', 'r', 't':
				r++
			case 'u':
				if scan.Hex4(s[r+2:]) < 0 {
					return nil, false
				}
				r += 5
			default:
				return nil, false
			}
		case c == '"' || c < ' ':
			return nil, false
		}
	}
	if !esc {
		return s, true
	}
	return appendUnescapedLoose(make([]byte, 0, len(s)), s), true
}

// appendUnescapedLoose is scan.AppendUnescaped for escapes that
// unquoteLoose checked, \' included.
func appendUnescapedLoose(dst, s []byte) []byte {
	mark := 0
	for r := 0; r < len(s); r++ {
		if s[r] != '\\' {
			continue
		}
		if s[r+1] == '\'' {
			dst, _ = scan.AppendUnescaped(dst, s[mark:r])
			dst = append(dst, '\'')
			mark = r + 2
		}
		r++ // the escaped byte (a \u escape's digits are no backslash)
	}
	dst, _ = scan.AppendUnescaped(dst, s[mark:])
	return dst
}
