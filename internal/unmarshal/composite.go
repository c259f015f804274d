package unmarshal

import (
	"encoding/base64"
	"reflect"
	"unsafe"

	"github.com/jetrpc/jetrpc/internal/scan"
)

func ptrDec(e *Decoder) decFn {
	rt := rtypeOf(e.typ)
	return func(data []byte, i int, p unsafe.Pointer, repair bool) (int, error) {
		if data[i] == 'n' {
			j, err := null(data, i)
			if err == nil {
				*(*unsafe.Pointer)(p) = nil
			}
			return j, err
		}
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			q = unsafe_New(rt)
			*(*unsafe.Pointer)(p) = q
		}
		return e.fn(data, i, q, repair)
	}
}

// countArray counts the elements of the array at data[i].
func countArray(data []byte, i int) (int, error) {
	j, done, err := open(data, i, ']')
	if err != nil || done {
		return 0, err
	}
	n := 0
	for {
		if j, err = skipValue(data, j); err != nil {
			return 0, err
		}
		n++
		if j, done, err = next(data, j, ']'); err != nil || done {
			return n, err
		}
	}
}

func sliceDec(e *Decoder) decFn {
	size := e.typ.Size()
	rt := rtypeOf(e.typ)
	bytes := e.typ.Kind() == reflect.Uint8
	return func(data []byte, i int, p unsafe.Pointer, repair bool) (int, error) {
		switch data[i] {
		case '[':
		case 'n':
			j, err := null(data, i)
			if err == nil {
				*(*sliceHeader)(p) = sliceHeader{}
			}
			return j, err
		case '"':
			if bytes {
				return decBase64(data, i, p, repair)
			}
			fallthrough
		default:
			return mismatch(data, i, "slice")
		}
		n, err := countArray(data, i)
		if err != nil {
			return 0, err
		}
		base := unsafe.Pointer(&emptyBase)
		if n > 0 {
			base = unsafe_NewArray(rt, n)
		}
		*(*sliceHeader)(p) = sliceHeader{Data: base, Len: n, Cap: n}
		j := scan.SkipWS(data, i+1)
		for k := 0; k < n; k++ {
			if j, err = e.fn(data, j, add(base, uintptr(k)*size), repair); err != nil {
				return 0, wrapIndex(err, k)
			}
			j, _, _ = next(data, j, ']')
		}
		if n == 0 {
			j = scan.SkipWS(data, j) + 1
		}
		return j, nil
	}
}

func decBase64(data []byte, i int, p unsafe.Pointer, repair bool) (int, error) {
	s, end, _, err := quoted(data, i, repair)
	if err != nil {
		return 0, err
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, berr := base64.StdEncoding.Decode(b, s)
	if berr != nil {
		return 0, typeErr("invalid base64", i)
	}
	*(*[]byte)(p) = b[:n]
	return end, nil
}

func arrayDec(e *Decoder, n int) decFn {
	size := e.typ.Size()
	zero := zeroFn(e.typ)
	return func(data []byte, i int, p unsafe.Pointer, repair bool) (int, error) {
		switch data[i] {
		case '[':
		case 'n':
			return null(data, i)
		default:
			return mismatch(data, i, "array")
		}
		j, done, err := open(data, i, ']')
		if err != nil {
			return 0, err
		}
		k := 0
		for ; !done; k++ {
			if k < n {
				j, err = e.fn(data, j, add(p, uintptr(k)*size), repair)
				if err != nil {
					return 0, wrapIndex(err, k)
				}
			} else if j, err = skipValue(data, j); err != nil {
				return 0, err
			}
			if j, done, err = next(data, j, ']'); err != nil {
				return 0, err
			}
		}
		for ; k < n; k++ {
			zero(add(p, uintptr(k)*size))
		}
		return j, nil
	}
}

// zeroFn returns a function that zeroes one value of t at p: a plain memory
// clear without pointers, reflect (write barriers) with them.
func zeroFn(t reflect.Type) func(p unsafe.Pointer) {
	size := t.Size()
	if !hasPointers(t) {
		return func(p unsafe.Pointer) { clear(unsafe.Slice((*byte)(p), size)) }
	}
	return func(p unsafe.Pointer) { reflect.NewAt(t, p).Elem().SetZero() }
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	}
	return true
}
