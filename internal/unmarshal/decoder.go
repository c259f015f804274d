package unmarshal

import (
	"encoding"
	"encoding/json"
	"reflect"
	"sync"
	"unsafe"

	"github.com/jetrpc/jetrpc/internal/scan"
)

// decFn decodes the value at data[i] (not whitespace) into p and returns the
// offset after it. data was validated (see scan.go); repair says that its
// strings may hold bytes that are not UTF-8, which Decode let through and
// which decode as U+FFFD.
type decFn func(data []byte, i int, p unsafe.Pointer, repair bool) (int, error)

// Decoder is the decoder program of one Go type. It is immutable after
// Compile and safe for concurrent use.
type Decoder struct {
	typ    reflect.Type
	fn     decFn
	fields []Field
}

// Field is one JSON member of a struct, in declaration order (embedded
// structs flattened, with encoding/json's rules for hidden and conflicting
// names). Decoder decodes the member as a member of the struct: given p,
// the address of the struct, f.Decoder.Decode(data, unsafe.Add(p,
// f.Offset)) fills it, its ",string" option applied. Dispatch uses it to
// bind positional params without reflect.
//
// A member reached through an embedded pointer has Offset 0 and a Decoder
// that starts from the struct: it allocates the embedded structs on the way
// (an error for a nil pointer to an unexported struct type, as in
// encoding/json). The Decoder's Type is the member's type either way.
type Field struct {
	Name    string
	Offset  uintptr
	Decoder *Decoder
	// Plain reports a member that lies at Offset in the struct itself (no
	// embedded pointer on the way) and binds as its type's own JSON (no
	// ",string" option): dispatch may then fill it without the Decoder.
	Plain bool

	fold []byte // Name folded for case-insensitive matching
}

// Type returns the Go type the Decoder fills.
func (d *Decoder) Type() reflect.Type { return d.typ }

// Fields returns the members of a struct type (nil for other kinds). The
// slice is shared: do not modify it.
func (d *Decoder) Fields() []Field { return d.fields }

// Decode decodes the single JSON value data into the value of d's type at p,
// which must point to such a value (Decode does not check it). It validates
// data first, with decode's scanner and depth limit, letting bytes that are
// not UTF-8 through in strings as encoding/json does (they decode as
// U+FFFD). Nothing it stores aliases data (see the package doc). As in
// encoding/json, null sets a pointer, slice, map or `any` to nil, is given
// to UnmarshalJSON, is stored by a json.RawMessage, and leaves other values
// unchanged.
func (d *Decoder) Decode(data []byte, p unsafe.Pointer) error {
	bad, err := validate(data)
	if err != nil {
		return err
	}
	return d.decode(data, p, bad)
}

// DecodeValid is Decode for data that decode has validated (a message's
// params or result, or a value inside them): it does not validate it
// again. On data that is not valid it returns an error or a wrong value,
// but never reads out of bounds.
func (d *Decoder) DecodeValid(data []byte, p unsafe.Pointer) error {
	return d.decode(data, p, false)
}

func (d *Decoder) decode(data []byte, p unsafe.Pointer, repair bool) error {
	i := scan.SkipWS(data, 0)
	if i >= len(data) {
		return syntaxErr(i)
	}
	i, err := d.fn(data, i, p, repair)
	if err != nil {
		return err
	}
	if i = scan.SkipWS(data, i); i != len(data) {
		return syntaxErr(i)
	}
	return nil
}

// DecodeInto is Decode for a typed target; d must have been compiled for T.
func DecodeInto[T any](d *Decoder, data []byte, v *T) error {
	return d.Decode(data, unsafe.Pointer(v))
}

var cache sync.Map // reflect.Type -> *Decoder

// Compile returns the Decoder of t, building it once; the result is cached.
func Compile(t reflect.Type) (*Decoder, error) {
	if d, ok := cache.Load(t); ok {
		return d.(*Decoder), nil
	}
	c := compiler{seen: map[compileKey]*Decoder{}}
	d, err := c.compile(t)
	if err != nil {
		return nil, err
	}
	v, _ := cache.LoadOrStore(t, d)
	return v.(*Decoder), nil
}

type compiler struct {
	seen map[compileKey]*Decoder // types being compiled (recursion)
}

// compileKey is a type and whether its pointer's methods are ignored.
type compileKey struct {
	t         reflect.Type
	noMethods bool
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// compile compiles t as reached through a pointer (the top level, a
// pointer's element): *t's UnmarshalJSON and UnmarshalText are used.
func (c *compiler) compile(t reflect.Type) (*Decoder, error) { return c.compileMode(t, false) }

// valueDec compiles t for a value position: a struct field, an element or a
// map value. encoding/json takes a value's address to find pointer methods
// only when its type is named, so an unnamed type (a struct literal type
// with promoted methods) is decoded by kind there.
func (c *compiler) valueDec(t reflect.Type) (*Decoder, error) {
	return c.compileMode(t, t.Name() == "" && hasDecodeMethods(t))
}

// hasDecodeMethods reports whether a value of t decodes through its own
// UnmarshalJSON or UnmarshalText when reached through a pointer.
func hasDecodeMethods(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		return false
	}
	pt := reflect.PointerTo(t)
	return pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType)
}

func (c *compiler) compileMode(t reflect.Type, noMethods bool) (*Decoder, error) {
	k := compileKey{t, noMethods}
	if d, ok := c.seen[k]; ok {
		return d, nil
	}
	d := &Decoder{typ: t}
	c.seen[k] = d
	fn, err := c.build(t, d, noMethods)
	if err != nil {
		return nil, err
	}
	d.fn = fn
	return d, nil
}

func (c *compiler) build(t reflect.Type, d *Decoder, noMethods bool) (decFn, error) {
	if fn := special(t, noMethods); fn != nil {
		return fn, nil
	}
	if fn := scalarDec(t.Kind()); fn != nil {
		return fn, nil
	}
	switch t.Kind() {
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return decAny, nil
		}
	case reflect.Pointer:
		e, err := c.pointee(t)
		if err != nil {
			return nil, err
		}
		return ptrDec(e), nil
	case reflect.Slice:
		e, err := c.valueDec(t.Elem())
		if err != nil {
			return nil, err
		}
		return sliceDec(e), nil
	case reflect.Array:
		e, err := c.valueDec(t.Elem())
		if err != nil {
			return nil, err
		}
		return arrayDec(e, t.Len()), nil
	case reflect.Map:
		return c.mapDec(t)
	case reflect.Struct:
		fields, err := c.structFields(t)
		if err != nil {
			return nil, err
		}
		d.fields = fields
		return structDec(fields), nil
	}
	return nil, &Error{Msg: "unsupported type " + t.String()}
}

// pointee compiles the element of pointer type t. A named pointer type has
// no methods, and encoding/json looks for them on it, not on *Elem: its
// element is decoded by kind unless it is itself a pointer.
func (c *compiler) pointee(t reflect.Type) (*Decoder, error) {
	e := t.Elem()
	return c.compileMode(e, t.Name() != "" && hasDecodeMethods(e))
}

// special returns the decoder of the types encoding/json treats apart, or
// nil.
func special(t reflect.Type, noMethods bool) decFn {
	if t == numberType {
		return decNumber
	}
	if noMethods || t.Kind() == reflect.Pointer {
		return nil
	}
	pt := reflect.PointerTo(t)
	switch {
	case t == rawMessageType:
		return decRaw
	case pt.Implements(unmarshalerType):
		return unmarshalerDec(t)
	case pt.Implements(textUnmarshalerType):
		return textUnmarshalerDec(t)
	}
	return nil
}

func scalarDec(k reflect.Kind) decFn {
	switch k {
	case reflect.Bool:
		return decBool
	case reflect.Int:
		return decInt[int]
	case reflect.Int8:
		return decInt[int8]
	case reflect.Int16:
		return decInt[int16]
	case reflect.Int32:
		return decInt[int32]
	case reflect.Int64:
		return decInt[int64]
	case reflect.Uint:
		return decUint[uint]
	case reflect.Uint8:
		return decUint[uint8]
	case reflect.Uint16:
		return decUint[uint16]
	case reflect.Uint32:
		return decUint[uint32]
	case reflect.Uint64:
		return decUint[uint64]
	case reflect.Uintptr:
		return decUint[uintptr]
	case reflect.Float32:
		return decFloat32
	case reflect.Float64:
		return decFloat64
	case reflect.String:
		return decString
	}
	return nil
}
