package unmarshal

// NOTE: the slow paths: any, json.Unmarshaler and encoding.TextUnmarshaler.
// They allocate; the typed paths do not.

import (
	"encoding"
	"encoding/json"
	"reflect"
	"unsafe"
)

func decAny(data []byte, i int, p unsafe.Pointer, repair bool) (int, error) {
	v, j, err := anyValue(data, i, repair)
	if err == nil {
		*(*any)(p) = v
	}
	return j, err
}

// anyValue decodes data[i] as encoding/json does into an interface.
func anyValue(data []byte, i int, repair bool) (any, int, error) {
	switch data[i] {
	case 'n':
		j, err := null(data, i)
		return nil, j, err
	case 't', 'f':
		var b bool
		j, err := decBool(data, i, unsafe.Pointer(&b), repair)
		return b, j, err
	case '"':
		var s string
		j, err := decString(data, i, unsafe.Pointer(&s), repair)
		return s, j, err
	case '[':
		j, done, err := open(data, i, ']')
		a := make([]any, 0)
		for err == nil && !done {
			var v any
			if v, j, err = anyValue(data, j, repair); err != nil {
				return nil, 0, err
			}
			a = append(a, v)
			j, done, err = next(data, j, ']')
		}
		return a, j, err
	case '{':
		j, done, err := open(data, i, '}')
		m := make(map[string]any)
		for err == nil && !done {
			var key []byte
			var v any
			if key, j, err = objectKey(data, j, nil, repair); err != nil {
				return nil, 0, err
			}
			if v, j, err = anyValue(data, j, repair); err != nil {
				return nil, 0, err
			}
			m[string(key)] = v
			j, done, err = next(data, j, '}')
		}
		return m, j, err
	}
	var f float64
	j, err := decFloat64(data, i, unsafe.Pointer(&f), repair)
	return f, j, err
}

// ifaceMaker builds, without reflect per call, the interface value of a
// *T at p: typ is the type word of *T, taken once at Compile.
func ifaceMaker(t reflect.Type) unsafe.Pointer {
	x := reflect.New(t).Interface()
	return (*iface)(unsafe.Pointer(&x)).tab
}

func boxPtr(typ, p unsafe.Pointer) any {
	var x any
	*(*iface)(unsafe.Pointer(&x)) = iface{tab: typ, data: p}
	return x
}

// unmarshalerDec calls UnmarshalJSON with the value's bytes, null included
// (they alias data: the method must copy what it keeps).
func unmarshalerDec(t reflect.Type) decFn {
	typ := ifaceMaker(t)
	return func(data []byte, i int, p unsafe.Pointer, repair bool) (int, error) {
		j, err := skipValue(data, i)
		if err != nil {
			return 0, err
		}
		u := boxPtr(typ, p).(json.Unmarshaler)
		if err := u.UnmarshalJSON(data[i:j]); err != nil {
			return 0, &Error{Msg: err.Error(), Offset: i}
		}
		return j, nil
	}
}

// textUnmarshalerDec calls UnmarshalText with a string's content (which may
// alias data: the method must copy what it keeps, as its contract says).
// null leaves the value alone, except that a slice or map is set to nil as
// encoding/json does.
func textUnmarshalerDec(t reflect.Type) decFn {
	typ := ifaceMaker(t)
	zeroOnNull := t.Kind() == reflect.Slice || t.Kind() == reflect.Map
	zero := zeroFn(t)
	return func(data []byte, i int, p unsafe.Pointer, repair bool) (int, error) {
		switch data[i] {
		case '"':
		case 'n':
			j, err := null(data, i)
			if err == nil && zeroOnNull {
				zero(p)
			}
			return j, err
		default:
			return mismatch(data, i, t.String())
		}
		s, j, _, err := quoted(data, i, repair)
		if err != nil {
			return 0, err
		}
		u := boxPtr(typ, p).(encoding.TextUnmarshaler)
		if err := u.UnmarshalText(s); err != nil {
			return 0, &Error{Msg: err.Error(), Offset: i}
		}
		return j, nil
	}
}
