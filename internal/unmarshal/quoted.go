package unmarshal

import (
	"reflect"
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

func (c *compiler) quotedDecoder(t reflect.Type) (*Decoder, error) {
	return nil, &Error{Msg: "unsupported ,string option on a field of type " + t.String()}
}
