package unmarshal

// NOTE: the slow paths: any, maps (reflect per member), json.Unmarshaler and
// encoding.TextUnmarshaler. They allocate; the typed paths do not.

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"unsafe"
)

func decAny(data []byte, i int, p unsafe.Pointer, depth int) (int, error) {
	v, j, err := anyValue(data, i, depth)
	if err == nil {
		*(*any)(p) = v
	}
	return j, err
}

// anyValue decodes data[i] as encoding/json does into an interface.
func anyValue(data []byte, i, depth int) (any, int, error) {
	switch data[i] {
	case 'n':
		j, err := null(data, i)
		return nil, j, err
	case 't', 'f':
		var b bool
		j, err := decBool(data, i, unsafe.Pointer(&b), depth)
		return b, j, err
	case '"':
		var s string
		j, err := decString(data, i, unsafe.Pointer(&s), depth)
		return s, j, err
	case '[':
		j, done, err := open(data, i, depth, ']')
		a := make([]any, 0)
		for err == nil && !done {
			var v any
			if v, j, err = anyValue(data, j, depth+1); err != nil {
				return nil, 0, err
			}
			a = append(a, v)
			j, done, err = next(data, j, ']')
		}
		return a, j, err
	case '{':
		j, done, err := open(data, i, depth, '}')
		m := make(map[string]any)
		for err == nil && !done {
			var key []byte
			var v any
			if key, j, err = objectKey(data, j, nil); err != nil {
				return nil, 0, err
			}
			if v, j, err = anyValue(data, j, depth+1); err != nil {
				return nil, 0, err
			}
			m[string(key)] = v
			j, done, err = next(data, j, '}')
		}
		return m, j, err
	}
	var f float64
	j, err := decFloat64(data, i, unsafe.Pointer(&f), depth)
	return f, j, err
}

func (c *compiler) mapDec(t reflect.Type) (decFn, error) {
	kt := t.Key()
	var key func(k []byte, i int) (reflect.Value, error)
	switch kt.Kind() {
	case reflect.String:
		key = func(k []byte, _ int) (reflect.Value, error) {
			v := reflect.New(kt).Elem()
			v.SetString(string(k))
			return v, nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		key = func(k []byte, i int) (reflect.Value, error) {
			v := reflect.New(kt).Elem()
			n, err := strconv.ParseInt(string(k), 10, 64)
			if err != nil || v.OverflowInt(n) {
				return v, typeErr("invalid integer map key", i)
			}
			v.SetInt(n)
			return v, nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		key = func(k []byte, i int) (reflect.Value, error) {
			v := reflect.New(kt).Elem()
			n, err := strconv.ParseUint(string(k), 10, 64)
			if err != nil || v.OverflowUint(n) {
				return v, typeErr("invalid unsigned integer map key", i)
			}
			v.SetUint(n)
			return v, nil
		}
	default:
		return nil, &Error{Msg: "unsupported map key type " + kt.String()}
	}
	e, err := c.compile(t.Elem())
	if err != nil {
		return nil, err
	}
	et := t.Elem()
	return func(data []byte, i int, p unsafe.Pointer, depth int) (int, error) {
		m := reflect.NewAt(t, p).Elem()
		switch data[i] {
		case '{':
		case 'n':
			j, err := null(data, i)
			if err == nil {
				m.SetZero()
			}
			return j, err
		default:
			return mismatch(data, i, "map")
		}
		j, done, err := open(data, i, depth, '}')
		if err == nil && m.IsNil() {
			m.Set(reflect.MakeMap(t))
		}
		for err == nil && !done {
			var k []byte
			var kv reflect.Value
			kj := j
			if k, j, err = objectKey(data, j, nil); err != nil {
				return 0, err
			}
			if kv, err = key(k, kj); err != nil {
				return 0, err
			}
			ev := reflect.New(et)
			if j, err = e.fn(data, j, ev.UnsafePointer(), depth+1); err != nil {
				return 0, wrapField(err, string(k))
			}
			m.SetMapIndex(kv, ev.Elem())
			j, done, err = next(data, j, '}')
		}
		return j, err
	}, nil
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

func unmarshalerDec(t reflect.Type) decFn {
	typ := ifaceMaker(t)
	return func(data []byte, i int, p unsafe.Pointer, depth int) (int, error) {
		j, err := skipValue(data, i, depth)
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

func textUnmarshalerDec(t reflect.Type) decFn {
	typ := ifaceMaker(t)
	return func(data []byte, i int, p unsafe.Pointer, depth int) (int, error) {
		switch data[i] {
		case '"':
		case 'n':
			return null(data, i)
		default:
			return mismatch(data, i, t.String())
		}
		s, j, plain, err := quoted(data, i)
		if err != nil {
			return 0, err
		}
		if plain {
			s = append([]byte(nil), s...)
		}
		u := boxPtr(typ, p).(encoding.TextUnmarshaler)
		if err := u.UnmarshalText(s); err != nil {
			return 0, &Error{Msg: err.Error(), Offset: i}
		}
		return j, nil
	}
}
