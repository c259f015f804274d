package marshal

import "reflect"

// Error reports a type that cannot be encoded (from Compile, or from Append
// for the dynamic type of an interface) or a value that cannot be (NaN, an
// infinity, invalid MarshalJSON output, too deep a nesting). Reason is a
// constant string, so building an Error needs no formatting.
type Error struct {
	Type   reflect.Type // the Go type being encoded
	Reason string       // what is wrong, e.g. "unsupported type"
	Err    error        // the error of a Marshaler method or of validation, if any
}

func (e *Error) Error() string {
	s := "marshal: " + e.Reason
	if e.Type != nil {
		s += " (" + e.Type.String() + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

const (
	reasonUnsupportedType = "unsupported type"
	reasonUnsupportedKey  = "unsupported map key type"
	reasonFloat           = "unsupported float value (NaN or Inf)"
	reasonMarshalJSON     = "error calling MarshalJSON"
	reasonInvalidJSON     = "invalid JSON from MarshalJSON or in json.RawMessage"
	reasonMarshalText     = "error calling MarshalText"
	reasonTooDeep         = "value nested too deeply (pointer cycle?)"
	reasonNumber          = "invalid json.Number literal"
	reasonNilKey          = "nil interface map key"
)
