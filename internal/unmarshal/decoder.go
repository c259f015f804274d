package unmarshal

import (
	"encoding"
	"encoding/json"
	"reflect"
	"sync"
	"unsafe"
)

// decFn decodes the value at data[i] (not whitespace) into p and returns the
// offset after it.
type decFn func(data []byte, i int, p unsafe.Pointer, depth int) (int, error)

// Decoder is the decoder program of one Go type. It is immutable after
// Compile and safe for concurrent use.
type Decoder struct {
	typ    reflect.Type
	fn     decFn
	fields []Field
}

// Field is one JSON member of a struct, in declaration order (embedded
// structs flattened): its name, its offset in the struct and the Decoder of
// its type. Dispatch uses it to bind positional params without reflect.
type Field struct {
	Name    string
	Offset  uintptr
	Decoder *Decoder

	fold []byte // Name folded for case-insensitive matching
}

// Type returns the Go type the Decoder fills.
func (d *Decoder) Type() reflect.Type { return d.typ }

// Fields returns the members of a struct type (nil for other kinds). The
// slice is shared: do not modify it.
func (d *Decoder) Fields() []Field { return d.fields }

// Decode decodes the single JSON value data into the value of d's type at p,
// which must point to such a value (Decode does not check it).
// Strings, slices and maps it stores own their memory (they do not alias
// data). null leaves a non-pointer value unchanged.
func (d *Decoder) Decode(data []byte, p unsafe.Pointer) error {
	i := skipWS(data, 0)
	if i >= len(data) {
		return syntaxErr(i)
	}
	i, err := d.fn(data, i, p, 0)
	if err != nil {
		return err
	}
	if i = skipWS(data, i); i != len(data) {
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
	c := compiler{seen: map[reflect.Type]*Decoder{}}
	d, err := c.compile(t)
	if err != nil {
		return nil, err
	}
	v, _ := cache.LoadOrStore(t, d)
	return v.(*Decoder), nil
}

type compiler struct {
	seen map[reflect.Type]*Decoder // types being compiled (recursion)
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func (c *compiler) compile(t reflect.Type) (*Decoder, error) {
	if d, ok := c.seen[t]; ok {
		return d, nil
	}
	d := &Decoder{typ: t}
	c.seen[t] = d
	fn, err := c.build(t, d)
	if err != nil {
		return nil, err
	}
	d.fn = fn
	return d, nil
}

// call decodes through d at call time, so recursive types work.
func call(d *Decoder) decFn {
	return func(data []byte, i int, p unsafe.Pointer, depth int) (int, error) {
		return d.fn(data, i, p, depth)
	}
}

func (c *compiler) build(t reflect.Type, d *Decoder) (decFn, error) {
	switch t {
	case rawMessageType:
		return decRaw, nil
	case numberType:
		return decNumber, nil
	}
	pt := reflect.PointerTo(t)
	if t.Kind() != reflect.Pointer && pt.Implements(unmarshalerType) {
		return unmarshalerDec(t), nil
	}
	if t.Kind() != reflect.Pointer && pt.Implements(textUnmarshalerType) {
		return textUnmarshalerDec(t), nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return decBool, nil
	case reflect.Int:
		return decInt[int], nil
	case reflect.Int8:
		return decInt[int8], nil
	case reflect.Int16:
		return decInt[int16], nil
	case reflect.Int32:
		return decInt[int32], nil
	case reflect.Int64:
		return decInt[int64], nil
	case reflect.Uint:
		return decUint[uint], nil
	case reflect.Uint8:
		return decUint[uint8], nil
	case reflect.Uint16:
		return decUint[uint16], nil
	case reflect.Uint32:
		return decUint[uint32], nil
	case reflect.Uint64:
		return decUint[uint64], nil
	case reflect.Uintptr:
		return decUint[uintptr], nil
	case reflect.Float32:
		return decFloat32, nil
	case reflect.Float64:
		return decFloat64, nil
	case reflect.String:
		return decString, nil
	case reflect.Interface:
		if t.NumMethod() != 0 {
			break
		}
		return decAny, nil
	case reflect.Pointer:
		e, err := c.compile(t.Elem())
		if err != nil {
			return nil, err
		}
		return ptrDec(e), nil
	case reflect.Slice:
		e, err := c.compile(t.Elem())
		if err != nil {
			return nil, err
		}
		return sliceDec(e), nil
	case reflect.Array:
		e, err := c.compile(t.Elem())
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

// valueDec compiles t for a value position: a struct field, an element or a
// map value.
func (c *compiler) valueDec(t reflect.Type) (*Decoder, error) { return c.compile(t) }
