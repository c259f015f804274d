package marshal

import (
	"encoding/base64"
	"reflect"
	"unsafe"
)

var errTooDeep = &Error{Reason: reasonTooDeep}

func ptrEnc(elem encFunc) encFunc {
	return func(dst []byte, p unsafe.Pointer, d int) ([]byte, error) {
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			return append(dst, "null"...), nil
		}
		if d >= maxDepth {
			return dst, errTooDeep
		}
		return elem(dst, q, d+1)
	}
}

type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func (c *compiler) sliceEnc(t reflect.Type) (encFunc, error) {
	et := t.Elem()
	if et.Kind() == reflect.Uint8 && !reflect.PointerTo(et).Implements(marshalerType) &&
		!reflect.PointerTo(et).Implements(textMarshalerType) {
		return bytesEnc, nil
	}
	elem, err := c.fn(et, true)
	if err != nil {
		return nil, err
	}
	size := et.Size()
	return func(dst []byte, p unsafe.Pointer, d int) ([]byte, error) {
		s := (*sliceHeader)(p)
		if s.data == nil {
			return append(dst, "null"...), nil
		}
		if d >= maxDepth {
			return dst, errTooDeep
		}
		return appendElems(dst, elem, s.data, s.len, size, d+1)
	}, nil
}

func appendElems(dst []byte, elem encFunc, base unsafe.Pointer, n int, size uintptr, d int) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = elem(dst, add(base, uintptr(i)*size), d); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

func bytesEnc(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
	b := *(*[]byte)(p)
	if b == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"'), nil
}

func (c *compiler) arrayEnc(t reflect.Type, addr bool) (encFunc, error) {
	elem, err := c.fn(t.Elem(), addr)
	if err != nil {
		return nil, err
	}
	n, size := t.Len(), t.Elem().Size()
	return func(dst []byte, p unsafe.Pointer, d int) ([]byte, error) {
		return appendElems(dst, elem, p, n, size, d)
	}, nil
}
