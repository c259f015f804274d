package marshal

import (
	"math"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/jetrpc/jetrpc/encode"
)

func scalarEnc(k reflect.Kind) encFunc {
	switch k {
	case reflect.Bool:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			if *(*bool)(p) {
				return append(dst, "true"...), nil
			}
			return append(dst, "false"...), nil
		}
	case reflect.Int:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			return strconv.AppendInt(dst, int64(*(*int)(p)), 10), nil
		}
	case reflect.Int8:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			return strconv.AppendInt(dst, int64(*(*int8)(p)), 10), nil
		}
	case reflect.Int16:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			return strconv.AppendInt(dst, int64(*(*int16)(p)), 10), nil
		}
	case reflect.Int32:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			return strconv.AppendInt(dst, int64(*(*int32)(p)), 10), nil
		}
	case reflect.Int64:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			return strconv.AppendInt(dst, *(*int64)(p), 10), nil
		}
	case reflect.Uint, reflect.Uintptr:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			return strconv.AppendUint(dst, uint64(*(*uint)(p)), 10), nil
		}
	case reflect.Uint8:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			return strconv.AppendUint(dst, uint64(*(*uint8)(p)), 10), nil
		}
	case reflect.Uint16:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			return strconv.AppendUint(dst, uint64(*(*uint16)(p)), 10), nil
		}
	case reflect.Uint32:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			return strconv.AppendUint(dst, uint64(*(*uint32)(p)), 10), nil
		}
	case reflect.Uint64:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			return strconv.AppendUint(dst, *(*uint64)(p), 10), nil
		}
	case reflect.Float32:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			return appendFloat(dst, float64(*(*float32)(p)), 32)
		}
	case reflect.Float64:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			return appendFloat(dst, *(*float64)(p), 64)
		}
	case reflect.String:
		return func(dst []byte, p unsafe.Pointer, _ int) ([]byte, error) {
			return encode.AppendString(dst, *(*string)(p)), nil
		}
	}
	return nil
}

// appendFloat formats f as encoding/json does: 'f' unless the magnitude is
// below 1e-6 or at least 1e21, then 'e' with a one-digit negative exponent
// cleaned up (e-09 -> e-9). NaN and infinities are an error.
func appendFloat(dst []byte, f float64, bits int) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, errFloat
	}
	abs := math.Abs(f)
	fm := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			fm = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, fm, -1, bits)
	if fm == 'e' {
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

var errFloat = &Error{Reason: reasonFloat}
