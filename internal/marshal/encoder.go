// This package uses unsafe on purpose: an Encoder walks a value through raw
// pointers and offsets precomputed by Compile, because reading the same
// value through reflect.Value on every call would box, allocate and cost
// several times more. Every pointer it forms is the address of a field,
// element or pointee of a value of the type the encoder was compiled for.

package marshal

import (
	"reflect"
	"sync"
	"unsafe"
)

// encFunc appends the JSON of the value at p. depth counts the pointers,
// slices, maps and interfaces followed so far.
type encFunc func(dst []byte, p unsafe.Pointer, depth int) ([]byte, error)

// maxDepth bounds nesting so that a pointer cycle is an error, not a stack
// overflow. encoding/json detects cycles instead; legal values nested this
// deep do not occur in practice (its own decoder stops at 10000).
const maxDepth = 10000

// Encoder is the compiled encoder program of one Go type. It is immutable
// and safe for concurrent use.
type Encoder struct {
	t      reflect.Type
	fn     encFunc
	direct bool // the type is stored directly in an interface's data word
}

// Type returns the type the encoder was compiled for.
func (e *Encoder) Type() reflect.Type { return e.t }

// Append appends the JSON of the value of e's type at p to dst. p must
// point to a value of exactly that type. On error the result is dst
// unchanged in length (its spare capacity may have been written).
func (e *Encoder) Append(dst []byte, p unsafe.Pointer) ([]byte, error) {
	n := len(dst)
	out, err := e.fn(dst, p, 0)
	if err != nil {
		return out[:n], err
	}
	return out, nil
}

// AppendValue appends the JSON of *v to dst. e must have been compiled for
// T; otherwise it returns an *Error.
func AppendValue[T any](e *Encoder, dst []byte, v *T) ([]byte, error) {
	if e.t != reflect.TypeFor[T]() {
		return dst, &Error{Type: reflect.TypeFor[T](), Reason: reasonTypeMismatch}
	}
	return e.Append(dst, unsafe.Pointer(v))
}

const reasonTypeMismatch = "encoder compiled for another type"

// CompileFor is Compile for the type T.
func CompileFor[T any]() (*Encoder, error) { return Compile(reflect.TypeFor[T]()) }

// Compile returns the encoder of t, building it on first use. Encoders are
// cached for the life of the process (the interface path needs them by
// dynamic type), so compiling the same type again is a map lookup. It fails
// with an *Error when t contains a type that cannot be encoded.
//
// The value is treated as addressable, as json.Marshal(&v) treats v:
// methods with pointer receivers (MarshalJSON, MarshalText, IsZero) apply.
func Compile(t reflect.Type) (*Encoder, error) {
	return compile(t, true)
}

// CompileValue is Compile for a value that is not addressable, as
// json.Marshal(v) treats v: methods with pointer receivers do not apply to
// it (they still do to what it reaches through pointers).
func CompileValue(t reflect.Type) (*Encoder, error) {
	return compile(t, false)
}

type cacheKey struct {
	t    reflect.Type
	addr bool // the values are addressable: pointer-receiver methods apply
}

// cache holds every compiled *Encoder by cacheKey. It is the package's one
// global: interface values need the encoder of their dynamic type at Append
// time, and compiling those per call would defeat the point.
var cache sync.Map

func compile(t reflect.Type, addr bool) (*Encoder, error) {
	if e, ok := cache.Load(cacheKey{t, addr}); ok {
		return e.(*Encoder), nil
	}
	c := &compiler{building: map[cacheKey]*Encoder{}}
	e, err := c.encoder(t, addr)
	if err != nil {
		return nil, err
	}
	// Publish only complete programs: every fn is set by now.
	for k, b := range c.building {
		cache.LoadOrStore(k, b)
	}
	return e, nil
}

// compiler builds the encoders of one Compile call. Types under
// construction are in building, which is how recursive types terminate.
type compiler struct {
	building map[cacheKey]*Encoder
}

func (c *compiler) encoder(t reflect.Type, addr bool) (*Encoder, error) {
	k := cacheKey{t, addr}
	if e, ok := cache.Load(k); ok {
		return e.(*Encoder), nil
	}
	if e, ok := c.building[k]; ok {
		return e, nil
	}
	e := &Encoder{t: t, direct: DirectIface(t)}
	c.building[k] = e
	fn, err := c.build(t, addr)
	if err != nil {
		return nil, err
	}
	e.fn = fn
	return e, nil
}

// fn returns the encFunc of t. For a type still under construction (a
// recursive type) it returns a trampoline that reads e.fn at call time.
func (c *compiler) fn(t reflect.Type, addr bool) (encFunc, error) {
	e, err := c.encoder(t, addr)
	if err != nil {
		return nil, err
	}
	if e.fn != nil {
		return e.fn, nil
	}
	return func(dst []byte, p unsafe.Pointer, d int) ([]byte, error) { return e.fn(dst, p, d) }, nil
}

func (c *compiler) build(t reflect.Type, addr bool) (encFunc, error) {
	if fn := methodEnc(t, addr); fn != nil {
		return fn, nil
	}
	if t == numberType {
		return numberEnc, nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem, err := c.fn(t.Elem(), true)
		if err != nil {
			return nil, err
		}
		return ptrEnc(elem), nil
	case reflect.Struct:
		return c.structEnc(t, addr)
	case reflect.Slice:
		return c.sliceEnc(t)
	case reflect.Array:
		return c.arrayEnc(t, addr)
	case reflect.Map:
		return c.mapEnc(t)
	case reflect.Interface:
		return ifaceEnc(t), nil
	}
	if fn := scalarEnc(t.Kind()); fn != nil {
		return fn, nil
	}
	return nil, &Error{Type: t, Reason: reasonUnsupportedType}
}

// DirectIface reports whether the gc toolchain stores a value of t in an
// interface's data word itself rather than a pointer to it (the rule of
// cmd/compile's types.IsDirectIface). internal/rpcmsg uses it too.
func DirectIface(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() == 1 && DirectIface(t.Elem())
	case reflect.Struct:
		return t.NumField() == 1 && DirectIface(t.Field(0).Type)
	}
	return false
}

func add(p unsafe.Pointer, off uintptr) unsafe.Pointer { return unsafe.Add(p, off) }
