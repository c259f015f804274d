package marshal

import (
	"encoding"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/jetrpc/jetrpc/encode"
)

type mapKey struct {
	s string
	i int
}

// mapEnc encodes maps with string, integer or TextMarshaler keys, keys
// sorted as strings as encoding/json does. It allocates per map: a copy of
// the values (so they can be visited in key order), the key index and the
// iterator, plus one string per integer or TextMarshaler key (and what
// MarshalText allocates).
func (c *compiler) mapEnc(t reflect.Type) (encFunc, error) {
	kt, vt := t.Key(), t.Elem()
	keyName := keyFunc(kt)
	if keyName == nil {
		return nil, &Error{Type: t, Reason: reasonUnsupportedKey}
	}
	venc, err := c.fn(vt, false)
	if err != nil {
		return nil, err
	}
	st, size := reflect.SliceOf(vt), vt.Size()
	return func(dst []byte, p unsafe.Pointer, d int) ([]byte, error) {
		m := reflect.NewAt(t, p).Elem()
		if m.IsNil() {
			return append(dst, "null"...), nil
		}
		if d >= maxDepth {
			return dst, errTooDeep
		}
		n := m.Len()
		vals := reflect.MakeSlice(st, n, n)
		keys := make([]mapKey, 0, n)
		kv := reflect.New(kt).Elem()
		it := m.MapRange()
		for i := 0; it.Next() && i < n; i++ {
			kv.SetIterKey(it)
			vals.Index(i).SetIterValue(it)
			s, err := keyName(kv)
			if err != nil {
				return dst, err
			}
			keys = append(keys, mapKey{s, i})
		}
		slices.SortFunc(keys, func(a, b mapKey) int { return strings.Compare(a.s, b.s) })
		base := vals.UnsafePointer()
		dst = append(dst, '{')
		var err error
		for j, k := range keys {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(encode.AppendString(dst, k.s), ':')
			if dst, err = venc(dst, add(base, uintptr(k.i)*size), d+1); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}, nil
}

// keyFunc returns encoding/json's resolveKeyName for keys of type kt (kv
// is an addressable copy of the key), or nil if it cannot encode them:
// string kinds as they are, then MarshalText (a value-receiver one: keys
// are not addressable), then integers in decimal.
func keyFunc(kt reflect.Type) func(kv reflect.Value) (string, error) {
	switch {
	case kt.Kind() == reflect.String:
		return func(kv reflect.Value) (string, error) { return kv.String(), nil }
	case kt.Implements(textMarshalerType):
		return textKeyFunc(kt)
	}
	switch kt.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(kv reflect.Value) (string, error) { return strconv.FormatInt(kv.Int(), 10), nil }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(kv reflect.Value) (string, error) { return strconv.FormatUint(kv.Uint(), 10), nil }
	}
	return nil
}

// textKeyFunc calls MarshalText of a key. A nil pointer key is "", as in
// encoding/json; a nil interface key (which makes encoding/json panic) is
// an error.
func textKeyFunc(kt reflect.Type) func(kv reflect.Value) (string, error) {
	text := func(m encoding.TextMarshaler, t reflect.Type) (string, error) {
		b, err := m.MarshalText()
		if err != nil {
			return "", &Error{Type: t, Reason: reasonMarshalText, Err: err}
		}
		return string(b), nil
	}
	switch kt.Kind() {
	case reflect.Interface:
		return func(kv reflect.Value) (string, error) {
			if kv.IsNil() {
				return "", &Error{Type: kt, Reason: reasonNilKey}
			}
			x := kv.Interface()
			return text(x.(encoding.TextMarshaler), reflect.TypeOf(x))
		}
	case reflect.Pointer:
		tmpl := reflect.Zero(kt).Interface().(encoding.TextMarshaler)
		return func(kv reflect.Value) (string, error) {
			if kv.IsNil() {
				return "", nil
			}
			return text(methodAt(tmpl, kv.UnsafePointer()), kt)
		}
	}
	tmpl := ptrTemplate[encoding.TextMarshaler](kt)
	return func(kv reflect.Value) (string, error) {
		return text(methodAt(tmpl, kv.Addr().UnsafePointer()), kt)
	}
}
