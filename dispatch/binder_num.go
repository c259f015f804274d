package dispatch

// NOTE: the fast binder of a P that is a slice of numbers ([]int,
// []float64, []uint32 ...), the shape of most bulk numeric params, read
// straight from the params without the compiled decoder's function values.
// Integers (parseInts) are parsed in one pass over the bytes (each
// number's digits, then the comma after it) into a 16-element buffer on
// the stack, then the slice is allocated once, at its exact size, and
// filled from it (one generic bindInts for every integer type: an
// unsigned one also refuses a minus sign); a longer array is counted byte
// by byte first (countNums), so that params that are not numbers never
// size a large allocation. Floats (bindFloats) count the commas, then parse each number
// (strconv unless it is a small integer). Anything it does not take on
// (null, a string or object element, a fraction bound to an integer, a
// number out of range, more than 18 digits) makes it give up, and the
// compiled decoder binds the params from the start, reporting what is wrong
// as it always does: the fast binder never decides an error. The slice is
// new on every call and aliases nothing, so the handler may keep it.

import (
	"bytes"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/jetrpc/jetrpc/internal/bytesconv"
	"github.com/jetrpc/jetrpc/internal/scan"
	"github.com/jetrpc/jetrpc/internal/unmarshal"
)

// numKind is the element kind of a slice the fast binder fills (numNone:
// not such a slice).
type numKind uint8

const (
	numNone numKind = iota
	numInt
	numInt8
	numInt16
	numInt32
	numInt64
	numUint
	numUint16
	numUint32
	numUint64
	numUintptr
	numFloat32
	numFloat64
)

var numKinds = map[reflect.Kind]numKind{
	reflect.Int: numInt, reflect.Int8: numInt8, reflect.Int16: numInt16, reflect.Int32: numInt32,
	reflect.Int64: numInt64, reflect.Uint: numUint, reflect.Uint16: numUint16, reflect.Uint32: numUint32,
	reflect.Uint64: numUint64, reflect.Uintptr: numUintptr, reflect.Float32: numFloat32,
	reflect.Float64: numFloat64,
}

// numSliceKind returns the kind of t's elements when t is a slice of plain
// numbers (no decoding methods on the slice or its elements), else numNone.
// []byte ([]uint8) is left to the compiled decoder: its JSON is usually a
// base64 string.
func numSliceKind(t reflect.Type) numKind {
	if t.Kind() != reflect.Slice || implementsUnmarshaler(t) || hasTextUnmarshaler(t) {
		return numNone
	}
	e := t.Elem()
	if implementsUnmarshaler(e) || hasTextUnmarshaler(e) {
		return numNone
	}
	return numKinds[e.Kind()]
}

func hasTextUnmarshaler(t reflect.Type) bool {
	return t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType)
}

// bindNums binds params to the slice at p (of b.num's elements); false
// leaves *p untouched, for the compiled decoder.
func (b *binder) bindNums(params []byte, p unsafe.Pointer) bool {
	switch b.num {
	case numInt:
		return bindInts[int](params, p)
	case numInt8:
		return bindInts[int8](params, p)
	case numInt16:
		return bindInts[int16](params, p)
	case numInt32:
		return bindInts[int32](params, p)
	case numInt64:
		return bindInts[int64](params, p)
	case numUint:
		return bindInts[uint](params, p)
	case numUint16:
		return bindInts[uint16](params, p)
	case numUint32:
		return bindInts[uint32](params, p)
	case numUint64:
		return bindInts[uint64](params, p)
	case numUintptr:
		return bindInts[uintptr](params, p)
	case numFloat32:
		return bindFloats[float32](params, p, 32)
	case numFloat64:
		return bindFloats[float64](params, p, 64)
	}
	return false
}

// The classes of the bytes an array of numbers holds.
const (
	clOther = iota // anything else: give up
	clDigit        // 0-9 and '-'
	clFrac         // '.', 'e', 'E', '+': only in a float's numbers
	clComma
	clSpace
)

var numClass = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = clDigit
	}
	t['-'] = clDigit
	t['.'], t['e'], t['E'], t['+'] = clFrac, clFrac, clFrac, clFrac
	t[','] = clComma
	t[' '], t['\t'], t['\n'], t['\r'] = clSpace, clSpace, clSpace, clSpace
	return t
}()

// smallArray is the most elements numElems takes the commas' word for:
// a longer array is checked byte by byte first, so that params that are
// not numbers (a string full of commas) never size a large allocation.
const smallArray = 16

// numElems returns the number of elements of params, an array of numbers
// (the parse that follows checks that it is exactly that), and the offset
// of the first. ok is false for anything but an array.
func numElems(params []byte, frac bool) (n, first int, ok bool) {
	if len(params) < 2 || params[0] != '[' || params[len(params)-1] != ']' {
		return 0, 0, false
	}
	first = skipSpace(params, 1)
	if params[first] == ']' {
		return 0, first, first == len(params)-1
	}
	if n = bytes.Count(params, comma) + 1; n > smallArray {
		n, ok = countNums(params, frac)
		return n, first, ok
	}
	return n, first, true
}

var comma = []byte{','}

// countNums counts the elements of params, an array that holds numbers,
// commas and whitespace and nothing else (integers only unless frac).
func countNums(params []byte, frac bool) (int, bool) {
	commas := 0
	for _, c := range params[1 : len(params)-1] {
		switch numClass[c] {
		case clDigit, clSpace:
		case clComma:
			commas++
		case clFrac:
			if !frac {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	return commas + 1, true
}

// skipSpace returns the offset of the first byte at or after i that is not
// whitespace (len(params) if none is).
func skipSpace(params []byte, i int) int {
	if i < len(params) && params[i] > ' ' {
		return i
	}
	return skipSpaceSlow(params, i)
}

func skipSpaceSlow(params []byte, i int) int {
	for i < len(params) && numClass[params[i]] == clSpace {
		i++
	}
	return i
}

// nextElem checks what follows an element that ends at params[i]: a comma
// and the next element when more, else (after whitespace) the closing
// bracket at last. It returns the offset of the next element.
func nextElem(params []byte, i, last int, more bool) (int, bool) {
	if more && i+1 < last && params[i] == ',' && params[i+1] > ' ' {
		return i + 1, true // "1,2": no whitespace
	}
	return nextElemSlow(params, i, last, more)
}

func nextElemSlow(params []byte, i, last int, more bool) (int, bool) {
	i = skipSpace(params, i)
	if !more {
		return i, i == last
	}
	if i >= last || params[i] != ',' {
		return 0, false
	}
	return skipSpace(params, i+1), true
}

// intNum is the element type of a slice bindInts fills.
type intNum interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// intChunk is how many integers parseInts parses in one go, into a
// buffer on the stack: most arrays of integers in params are this short,
// and get their slice sized exactly without counting first.
const intChunk = 16

// The states parseInts ends in.
const (
	intsBad  = iota // not an array of plain integers: the decoder's
	intsDone        // the closing bracket reached
	intsMore        // buf is full, more follow at next
)

// parseInts parses the integers of the array params (checked to end in
// ']') from offset i, the start of an element, into buf until it is full
// or the array ends: how many, where the next starts, the state, and
// whether any had a minus sign. An integer is an optional '-' and at most
// 18 digits (so it cannot overflow); anything else is intsBad. It reads
// each byte once: a number's digits in a tight loop, then the comma (or
// the closing ']') after it.
func parseInts(params []byte, i int, buf *[intChunk]int64) (n, next, state int, neg bool) {
	last := len(params) - 1
	for n < len(buf) && i < last {
		c := params[i]
		sign := c == '-'
		if sign {
			neg = true
			i++
			c = params[i]
		}
		x := int64(c - '0')
		if uint64(x) > 9 {
			return 0, 0, intsBad, false
		}
		start := i
		for i++; i < last; i++ {
			d := params[i] - '0'
			if d > 9 {
				break
			}
			x = x*10 + int64(d)
		}
		if i-start > 18 {
			return 0, 0, intsBad, false
		}
		if sign {
			x = -x
		}
		buf[n] = x
		n++
		switch c = params[i]; {
		case c == ',':
			i++
		case i == last:
			return n, last, intsDone, neg
		default: // whitespace, then a comma or the end
			if i = skipSpace(params, i); i == last {
				return n, last, intsDone, neg
			}
			if params[i] != ',' {
				return 0, 0, intsBad, false
			}
			i++
		}
		if params[i] <= ' ' {
			i = skipSpace(params, i)
		}
	}
	if n == 0 || i >= last { // "[1,]", or whitespace the loop did not reach
		return 0, 0, intsBad, false
	}
	return n, i, intsMore, neg
}

// intsFirst starts parseInts on params: ok is false when params is not an
// array; an empty array is intsDone with n 0.
func intsFirst(params []byte, buf *[intChunk]int64) (n, next, state int, neg bool) {
	if len(params) < 2 || params[0] != '[' || params[len(params)-1] != ']' {
		return 0, 0, intsBad, false
	}
	i := skipSpace(params, 1)
	if params[i] == ']' {
		if i != len(params)-1 {
			return 0, 0, intsBad, false
		}
		return 0, i, intsDone, false
	}
	return parseInts(params, i, buf)
}

// bindInts binds params, an array of integers, to the []T at p; false
// leaves *p untouched, for the compiled decoder (a number out of T's
// range, or any sign for an unsigned T, even -0, as strconv.ParseUint).
func bindInts[T intNum](params []byte, p unsafe.Pointer) bool {
	signed := ^T(0) < 0
	var buf [intChunk]int64
	n, next, state, neg := intsFirst(params, &buf)
	var s []T
	switch {
	case state == intsBad, neg && !signed:
		return false
	case state == intsDone && unsafe.Sizeof(T(0)) == 8:
		// The buffer holds the slice's values (non-negative for an unsigned
		// T): copied once, unzeroed.
		src := unsafe.Slice((*T)(unsafe.Pointer(&buf[0])), n)
		s = make([]T, len(src))
		copy(s, src)
		*(*[]T)(p) = s
		return true
	case state == intsDone:
		s = make([]T, n)
	default:
		total, ok := countNums(params, false)
		if !ok {
			return false
		}
		s = make([]T, total)
	}
	k := 0
	for {
		if n > len(s)-k {
			return false
		}
		for j, v := range buf[:n] {
			if int64(T(v)) != v {
				return false // out of T's range: the decoder's error
			}
			s[k+j] = T(v)
		}
		if k += n; state != intsMore {
			break
		}
		if n, next, state, neg = parseInts(params, next, &buf); state == intsBad || neg && !signed {
			return false
		}
	}
	if k != len(s) {
		return false
	}
	*(*[]T)(p) = s
	return true
}

// exactInt is the largest magnitude of an integer of at most 15 digits,
// which float64 holds exactly.
const exactInt = 999_999_999_999_999

func bindFloats[T float32 | float64](params []byte, p unsafe.Pointer, bits int) bool {
	n, i, ok := numElems(params, true)
	if !ok {
		return false
	}
	s, last := make([]T, n), len(params)-1
	for k := range s {
		end := i
		for end < last && numClass[params[end]]-clDigit <= clFrac-clDigit {
			end++
		}
		x, neg, intEnd := scan.IntAt(params, i, last)
		if intEnd == end && end != 0 && x <= exactInt {
			f := float64(x) // exact; one rounding to T, as strconv does
			if neg {
				f = -f // -0 stays -0, as encoding/json decodes it
			}
			s[k] = T(f)
		} else {
			f, err := strconv.ParseFloat(bytesconv.B2S(params[i:end]), bits)
			if err != nil || end == i {
				return false
			}
			s[k] = T(f)
		}
		if i, ok = nextElem(params, end, last, k < n-1); !ok {
			return false
		}
	}
	*(*[]T)(p) = s
	return true
}

// intField is a member of a struct P of integers only, which bindIntFields
// fills from positional params: where it is and its kind.
type intField struct {
	off  uintptr
	kind numKind
	name string // the member's JSON name
}

// intFieldsOff leaves every binder without ints (tests: the decoder's
// answers to compare the fast path with). Read when a binder is built.
var intFieldsOff bool

// intFieldsOf returns the members of a struct P as intFields when every
// one is a plain integer field (no ",string", no embedded pointer, no
// decoding methods), and whether one is unsigned; nil otherwise.
func intFieldsOf(fields []unmarshal.Field) ([]intField, bool) {
	if len(fields) == 0 {
		return nil, false
	}
	ints := make([]intField, len(fields))
	unsigned := false
	for i, f := range fields {
		t := f.Decoder.Type()
		k := numKinds[t.Kind()]
		if !f.Plain || k == numNone || k == numFloat32 || k == numFloat64 ||
			implementsUnmarshaler(t) || hasTextUnmarshaler(t) {
			return nil, false
		}
		unsigned = unsigned || k.unsigned()
		ints[i] = intField{off: f.Offset, kind: k, name: f.Name}
	}
	return ints, unsigned
}

// unsigned reports an unsigned integer kind.
func (k numKind) unsigned() bool { return k >= numUint && k <= numUintptr }

// bindIntStruct binds params to the struct of integers at p, by position
// (bindIntFields) or by name (bindIntMembers); false leaves them to the
// decoder.
func (b *binder) bindIntStruct(params []byte, p unsafe.Pointer) bool {
	if params[0] == '{' {
		return b.bindIntMembers(params, p)
	}
	return b.bindIntFields(params, p)
}

// fits reports whether v is in range of f's kind.
func (f intField) fits(v int64) bool {
	switch f.kind {
	case numInt8:
		return v == int64(int8(v))
	case numInt16:
		return v == int64(int16(v))
	case numInt32:
		return v == int64(int32(v))
	case numUint16:
		return v == int64(uint16(v))
	case numUint32:
		return v == int64(uint32(v))
	case numInt:
		return v == int64(int(v))
	case numUint:
		return v >= 0 && v == int64(uint(v))
	case numUintptr:
		return v >= 0 && v == int64(uintptr(v))
	case numUint64:
		return v >= 0
	}
	return true // int64: parseInts takes at most 18 digits
}

// store writes v, in range, to f in the struct at p.
func (f intField) store(p unsafe.Pointer, v int64) {
	q := unsafe.Add(p, f.off)
	switch f.kind {
	case numInt:
		*(*int)(q) = int(v)
	case numInt64:
		*(*int64)(q) = v
	case numInt8:
		*(*int8)(q) = int8(v)
	case numInt16:
		*(*int16)(q) = int16(v)
	case numInt32:
		*(*int32)(q) = int32(v)
	case numUint:
		*(*uint)(q) = uint(v)
	case numUintptr:
		*(*uintptr)(q) = uintptr(v)
	case numUint64:
		*(*uint64)(q) = uint64(v)
	case numUint16:
		*(*uint16)(q) = uint16(v)
	case numUint32:
		*(*uint32)(q) = uint32(v)
	}
}

// bindIntFields binds positional params, an array of at most len(b.ints)
// plain integers, each in range of its field, to the struct at p, field by
// field in order (the fields after the last param keep their zero values,
// as bindPositional leaves them); false, with *p untouched, sends anything
// else to the decoder, which binds or reports it as it always does.
func (b *binder) bindIntFields(params []byte, p unsafe.Pointer) bool {
	var buf [intChunk]int64
	n, _, state, neg := intsFirst(params, &buf)
	if state != intsDone || n > len(b.ints) || neg && b.intsU {
		return false
	}
	for k, v := range buf[:n] {
		if !b.ints[k].fits(v) {
			return false
		}
	}
	for k, v := range buf[:n] {
		b.ints[k].store(p, v)
	}
	return true
}

// bindIntMembers binds named params to the struct at p when every member
// is named exactly as a field (no escapes; each field at most once) and is
// a plain integer in range of it: the fields not named keep their zero
// values, as the decoder leaves them. false, with *p untouched, leaves
// anything else (another name, one matching only case-insensitively, a
// duplicate, null, a fraction ...) to the decoder, which binds or reports
// it as it always does.
func (b *binder) bindIntMembers(params []byte, p unsafe.Pointer) bool {
	var vals [intChunk]int64
	var seen uint32
	last := len(params) - 1 // the object's '}' (validated)
	if len(b.ints) > len(vals) || last < 1 {
		return false
	}
	i := skipSpace(params, 1)
	for i < last {
		if params[i] != '"' {
			return false
		}
		j := i + 1
		for j < last && params[j] != '"' && params[j] != '\\' {
			j++
		}
		if j >= last || params[j] != '"' {
			return false
		}
		k := b.intField(params[i+1 : j])
		if k < 0 || seen&(1<<k) != 0 {
			return false
		}
		seen |= 1 << k
		if i = skipSpace(params, j+1); i >= last || params[i] != ':' {
			return false
		}
		u, neg, end := scan.IntAt(params, skipSpace(params, i+1), last)
		if end == 0 || neg && b.ints[k].kind.unsigned() { // even -0: strconv.ParseUint refuses a sign
			return false
		}
		x := int64(u) // at most 18 digits
		if neg {
			x = -x
		}
		if !b.ints[k].fits(x) {
			return false
		}
		vals[k] = x
		switch i = skipSpace(params, end); {
		case params[i] == ',':
			i = skipSpace(params, i+1)
		case i != last: // a fraction or an exponent
			return false
		}
	}
	if i != last {
		return false
	}
	for k := range b.ints {
		if seen&(1<<k) != 0 {
			b.ints[k].store(p, vals[k])
		}
	}
	return true
}

// intField returns the index of the field named name exactly, or -1.
func (b *binder) intField(name []byte) int {
	for k := range b.ints {
		if b.ints[k].name == string(name) {
			return k
		}
	}
	return -1
}
