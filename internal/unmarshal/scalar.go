package unmarshal

import (
	"strconv"
	"unsafe"

	"github.com/jetrpc/jetrpc/internal/scan"
)

// null checks a null at data[i].
func null(data []byte, i int) (int, error) { return literal(data, i, "null") }

func decBool(data []byte, i int, p unsafe.Pointer, _ bool) (int, error) {
	switch data[i] {
	case 't':
		j, err := literal(data, i, "true")
		if err == nil {
			*(*bool)(p) = true
		}
		return j, err
	case 'f':
		j, err := literal(data, i, "false")
		if err == nil {
			*(*bool)(p) = false
		}
		return j, err
	case 'n':
		return null(data, i)
	}
	return mismatch(data, i, "bool")
}

// mismatch reports a value of the wrong JSON type.
func mismatch(data []byte, i int, want string) (int, error) {
	return 0, typeErr("cannot decode "+kindName(data[i])+" into "+want, i)
}

func kindName(c byte) string {
	switch c {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// number returns the end of the number at data[i]; ok is false for a
// non-number (end and err are then the result to return).
func number(data []byte, i int, want string) (end int, ok bool, err error) {
	c := data[i]
	if c == '-' || isDigit(c) {
		if j, c := scan.Number(data, i); c == scan.OK {
			return j, true, nil
		}
		return 0, false, syntaxErr(i)
	}
	if c == 'n' {
		end, err = null(data, i)
		return end, false, err
	}
	end, err = mismatch(data, i, want)
	return end, false, err
}

type signed interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64
}

type unsigned interface {
	~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

func decInt[T signed](data []byte, i int, p unsafe.Pointer, _ bool) (int, error) {
	if n, j, ok := plainInt(data, i); ok && int64(T(n)) == n {
		*(*T)(p) = T(n) // the usual case, in one pass
		return j, nil
	}
	j, ok, err := number(data, i, "integer")
	if !ok {
		return j, err
	}
	if !setInt[T](b2s(data[i:j]), p) {
		return 0, typeErr("number "+string(data[i:j])+" is not a representable integer", i)
	}
	return j, nil
}

func decUint[T unsigned](data []byte, i int, p unsafe.Pointer, _ bool) (int, error) {
	j, ok, err := number(data, i, "unsigned integer")
	if !ok {
		return j, err
	}
	if !setUint[T](b2s(data[i:j]), p) {
		return 0, typeErr("number "+string(data[i:j])+" is not a representable unsigned integer", i)
	}
	return j, nil
}

func decFloat64(data []byte, i int, p unsafe.Pointer, _ bool) (int, error) {
	j, ok, err := number(data, i, "float64")
	if !ok {
		return j, err
	}
	if !setFloat64(b2s(data[i:j]), p) {
		return 0, typeErr("number "+string(data[i:j])+" overflows float64", i)
	}
	return j, nil
}

func decFloat32(data []byte, i int, p unsafe.Pointer, _ bool) (int, error) {
	j, ok, err := number(data, i, "float32")
	if !ok {
		return j, err
	}
	if !setFloat32(b2s(data[i:j]), p) {
		return 0, typeErr("number "+string(data[i:j])+" overflows float32", i)
	}
	return j, nil
}

// The setters parse s with strconv as encoding/json does (the number's
// syntax is checked before, except under ",string") and store it at p;
// false means s does not fit.

// plainInt parses the integer at data[i] in one pass when it is a plain
// one: an optional minus, then 0 or 1 to 18 digits without a leading zero,
// not followed by a fraction or an exponent; end is where it ends. ok is
// false for anything else, which decInt's checked path parses or refuses
// (so that its errors are the same).
func plainInt(data []byte, i int) (n int64, end int, ok bool) {
	x, neg, j := scan.IntAt(data, i, len(data))
	first := i
	if neg {
		first++
	}
	switch {
	case j == 0 || j-first > 1 && data[first] == '0':
		return 0, 0, false
	case j < len(data) && (data[j] == '.' || data[j]|0x20 == 'e'):
		return 0, 0, false
	}
	n = int64(x)
	if neg {
		n = -n
	}
	return n, j, true
}

// smallInt parses s, a number the scanner has checked, when it is an
// integer of at most 18 digits (it cannot overflow int64); ok is false for
// anything else (a fraction, an exponent, more digits), which goes to
// strconv.
func smallInt(s string) (n int64, ok bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		n = n*10 + int64(c)
	}
	if neg {
		n = -n
	}
	return n, true
}

func setInt[T signed](s string, p unsafe.Pointer) bool {
	if n, ok := smallInt(s); ok {
		if int64(T(n)) != n {
			return false
		}
		*(*T)(p) = T(n)
		return true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || int64(T(n)) != n {
		return false
	}
	*(*T)(p) = T(n)
	return true
}

func setUint[T unsigned](s string, p unsafe.Pointer) bool {
	if n, ok := smallInt(s); ok && n >= 0 && s[0] != '-' {
		if uint64(T(n)) != uint64(n) {
			return false
		}
		*(*T)(p) = T(n)
		return true
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || uint64(T(n)) != n {
		return false
	}
	*(*T)(p) = T(n)
	return true
}

func setFloat64(s string, p unsafe.Pointer) bool {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return false
	}
	*(*float64)(p) = f
	return true
}

func setFloat32(s string, p unsafe.Pointer) bool {
	f, err := strconv.ParseFloat(s, 32)
	if err != nil {
		return false
	}
	*(*float32)(p) = float32(f)
	return true
}

// ownString returns s as a string that does not alias the input: s's own
// new buffer when owned, else a copy (s is a slice of the input).
func ownString(s []byte, owned bool) string {
	if owned {
		return b2s(s)
	}
	return string(s)
}

func decString(data []byte, i int, p unsafe.Pointer, repair bool) (int, error) {
	switch data[i] {
	case '"':
	case 'n':
		return null(data, i)
	default:
		return mismatch(data, i, "string")
	}
	s, end, owned, err := quoted(data, i, repair)
	if err != nil {
		return 0, err
	}
	*(*string)(p) = ownString(s, owned)
	return end, nil
}
