package unmarshal

import (
	"encoding/json"
	"reflect"
	"unsafe"

	"github.com/jetrpc/jetrpc/internal/scan"
)

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
)

// decRaw stores a copy of the (checked) value's bytes, null included, as
// json.RawMessage.UnmarshalJSON does; the copy is always a new array.
func decRaw(data []byte, i int, p unsafe.Pointer, _ bool) (int, error) {
	j, err := skipValue(data, i)
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
func decNumber(data []byte, i int, p unsafe.Pointer, repair bool) (int, error) {
	switch c := data[i]; {
	case c == '"':
		s, end, owned, err := quoted(data, i, repair)
		if err != nil {
			return 0, err
		}
		if !scan.IsNumber(s) {
			return 0, typeErr("invalid number literal "+string(s)+" for json.Number", i)
		}
		*(*string)(p) = ownString(s, owned)
		return end, nil
	case c == 'n':
		return null(data, i)
	case c == '-' || isDigit(c):
		j, c := scan.Number(data, i)
		if c != scan.OK {
			return 0, syntaxErr(i)
		}
		*(*string)(p) = string(data[i:j])
		return j, nil
	}
	return mismatch(data, i, "json.Number")
}
