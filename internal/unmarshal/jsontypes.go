package unmarshal

import (
	"encoding/json"
	"reflect"
	"unsafe"
)

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
)

// decRaw stores a copy of the (checked) value's bytes, null included, as
// json.RawMessage.UnmarshalJSON does; the copy is always a new array.
func decRaw(data []byte, i int, p unsafe.Pointer, depth int) (int, error) {
	j, err := skipValue(data, i, depth)
	if err != nil {
		return 0, err
	}
	b := make([]byte, j-i)
	copy(b, data[i:j])
	*(*[]byte)(p) = b
	return j, nil
}

// decNumber stores a number's text, or a string's content that is a valid
// number, as a json.Number; null leaves it unchanged.
func decNumber(data []byte, i int, p unsafe.Pointer, _ int) (int, error) {
	switch c := data[i]; {
	case c == '"':
		s, end, plain, err := quoted(data, i)
		if err != nil {
			return 0, err
		}
		if !validNumber(s) {
			return 0, typeErr("invalid number literal "+string(s)+" for json.Number", i)
		}
		*(*string)(p) = ownString(s, plain)
		return end, nil
	case c == 'n':
		return null(data, i)
	case c == '-' || isDigit(c):
		j := scanNumber(data, i)
		if j < 0 {
			return 0, syntaxErr(i)
		}
		*(*string)(p) = string(data[i:j])
		return j, nil
	}
	return mismatch(data, i, "json.Number")
}

// validNumber reports whether s is exactly one JSON number.
func validNumber(s []byte) bool { return len(s) > 0 && scanNumber(s, 0) == len(s) }
