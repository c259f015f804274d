package unmarshal

// NOTE: maps are filled through the runtime's own assignment (see alloc.go):
// the element is decoded straight into the slot mapassign returns, after
// zeroing it (encoding/json decodes each member into a zeroed value).
// Allocations: the map itself (sized by counting the members when it is
// new), one per new string key, and the elements' own memory.

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/jetrpc/jetrpc/internal/scan"
)

type keyKind uint8

const (
	keyString     keyKind = iota // any string kind, through mapassign_faststr
	keyStringSlow                // string kind, element larger than maxFastElem
	keyInt
	keyUint
	keyText // *K is an encoding.TextUnmarshaler (and maybe a json.Unmarshaler)
)

// mapProg is the decoder of one map type.
type mapProg struct {
	typ   reflect.Type
	mt    unsafe.Pointer // typ's runtime descriptor
	key   keyKind
	bits  int            // integer keys: the key's size in bits
	krt   unsafe.Pointer // keyText, keyStringSlow: the key's type, to allocate one
	ktab  unsafe.Pointer // keyText: the type word of *K (ifaceMaker)
	kjson bool           // keyText: *K is a json.Unmarshaler, given the quoted key
	elem  *Decoder
	zero  func(unsafe.Pointer)
}

func (c *compiler) mapDec(t reflect.Type) (decFn, error) {
	m := &mapProg{typ: t, mt: rtypeOf(t), zero: zeroFn(t.Elem())}
	kt := t.Key()
	switch pk := reflect.PointerTo(kt); {
	case pk.Implements(textUnmarshalerType):
		m.key, m.krt, m.ktab = keyText, rtypeOf(kt), ifaceMaker(kt)
		m.kjson = pk.Implements(unmarshalerType)
	case kt.Kind() == reflect.String && t.Elem().Size() <= maxFastElem:
		m.key = keyString
	case kt.Kind() == reflect.String:
		m.key, m.krt = keyStringSlow, rtypeOf(kt)
	case isIntKind(kt.Kind()):
		m.key, m.bits = keyInt, kt.Bits()
	case isUintKind(kt.Kind()):
		m.key, m.bits = keyUint, kt.Bits()
	default:
		return nil, &Error{Msg: "unsupported map key type " + kt.String()}
	}
	e, err := c.valueDec(t.Elem())
	if err != nil {
		return nil, err
	}
	m.elem = e
	return m.decode, nil
}

func isIntKind(k reflect.Kind) bool { return reflect.Int <= k && k <= reflect.Int64 }

func isUintKind(k reflect.Kind) bool { return reflect.Uint <= k && k <= reflect.Uintptr }

func (m *mapProg) decode(data []byte, i int, p unsafe.Pointer, repair bool) (int, error) {
	switch data[i] {
	case '{':
	case 'n':
		j, err := null(data, i)
		if err == nil {
			*(*unsafe.Pointer)(p) = nil
		}
		return j, err
	default:
		return mismatch(data, i, "map")
	}
	j, done, err := open(data, i, '}')
	if err != nil {
		return 0, err
	}
	mp := *(*unsafe.Pointer)(p)
	if mp == nil { // encoding/json adds to an existing map
		if mp, err = m.makeMap(data, i, done); err != nil {
			return 0, err
		}
		*(*unsafe.Pointer)(p) = mp
	}
	for !done {
		var buf [64]byte
		var k []byte
		kj := j
		if k, j, err = objectKey(data, j, buf[:0], repair); err != nil {
			return 0, err
		}
		slot, err := m.assign(mp, k, data, kj)
		if err != nil {
			return 0, err
		}
		m.zero(slot)
		if j, err = m.elem.fn(data, j, slot, repair); err != nil {
			return 0, wrapField(err, string(k))
		}
		if j, done, err = next(data, j, '}'); err != nil {
			return 0, err
		}
	}
	return j, nil
}

// makeMap makes the map of the object at data[i], sized for its members.
func (m *mapProg) makeMap(data []byte, i int, empty bool) (unsafe.Pointer, error) {
	n := 0
	if !empty {
		var err error
		if n, err = countMembers(data, i); err != nil {
			return nil, err
		}
	}
	return reflect.MakeMapWithSize(m.typ, n).UnsafePointer(), nil
}

// assign inserts the key k (unescaped; data[kj] is its opening quote) into
// the map mp and returns its element's slot. k may alias a caller's stack
// buffer: it must not escape (no indirect call sees it).
func (m *mapProg) assign(mp unsafe.Pointer, k, data []byte, kj int) (unsafe.Pointer, error) {
	switch m.key {
	case keyString:
		return mapassign_faststr(m.mt, mp, string(k)), nil
	case keyStringSlow:
		// A key on the heap: mapassign's noescape would let a local
		// string's bytes live on the stack.
		kp := unsafe_New(m.krt)
		*(*string)(kp) = string(k)
		return mapassign(m.mt, mp, kp), nil
	case keyInt:
		n, err := strconv.ParseInt(b2s(k), 10, 64)
		if err != nil || n<<(64-m.bits)>>(64-m.bits) != n {
			return nil, typeErr("map key "+string(k)+" is not a representable integer", kj)
		}
		var v uint64
		storeUint(unsafe.Pointer(&v), uintptr(m.bits/8), uint64(n))
		return mapassign(m.mt, mp, unsafe.Pointer(&v)), nil
	case keyUint:
		n, err := strconv.ParseUint(b2s(k), 10, 64)
		if err != nil || n<<(64-m.bits)>>(64-m.bits) != n {
			return nil, typeErr("map key "+string(k)+" is not a representable unsigned integer", kj)
		}
		var v uint64
		storeUint(unsafe.Pointer(&v), uintptr(m.bits/8), n)
		return mapassign(m.mt, mp, unsafe.Pointer(&v)), nil
	}
	return m.assignText(mp, append([]byte(nil), k...), data, kj)
}

// assignText decodes a key of a TextUnmarshaler type into a new key value
// as encoding/json does: UnmarshalJSON of the quoted key when *K has it,
// else UnmarshalText of the unescaped key.
func (m *mapProg) assignText(mp unsafe.Pointer, k, data []byte, kj int) (unsafe.Pointer, error) {
	kp := unsafe_New(m.krt)
	u := boxPtr(m.ktab, kp)
	var err error
	if m.kjson {
		end := scan.SkipString(data, kj) // objectKey read it
		err = u.(json.Unmarshaler).UnmarshalJSON(data[kj:end])
	} else {
		err = u.(encoding.TextUnmarshaler).UnmarshalText(k)
	}
	if err != nil {
		return nil, typeErr(err.Error(), kj)
	}
	return mapassign(m.mt, mp, kp), nil
}

// countMembers checks the object at data[i] and counts its members.
func countMembers(data []byte, i int) (int, error) {
	j, done, err := open(data, i, '}')
	if err != nil || done {
		return 0, err
	}
	for n := 1; ; n++ {
		if _, j, _, err = memberKey(data, j); err != nil {
			return 0, err
		}
		if j, err = skipValue(data, j); err != nil {
			return 0, err
		}
		if j, done, err = next(data, j, '}'); err != nil || done {
			return n, err
		}
	}
}
