package marshal

import (
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

// mapEnc encodes maps with string or integer keys, keys sorted as strings
// as encoding/json does. It allocates per map: a copy of the values (so
// they can be visited in key order), the key index and the iterator, plus
// one string per integer key.
func (c *compiler) mapEnc(t reflect.Type) (encFunc, error) {
	kt, vt := t.Key(), t.Elem()
	kk := kt.Kind()
	if kk != reflect.String && (kt.Implements(textMarshalerType) || scalarEnc(kk) == nil ||
		kk == reflect.Bool || kk == reflect.Float32 || kk == reflect.Float64) {
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
			var s string
			switch {
			case kk == reflect.String:
				s = kv.String()
			case kv.CanInt():
				s = strconv.FormatInt(kv.Int(), 10)
			default:
				s = strconv.FormatUint(kv.Uint(), 10)
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
