package dispatch

// NOTE: the direct path of a Typed handler. The compiled codecs take the
// address of P and R through function values, which would move them to
// the heap on every call, so ServeRPC keeps them in a pooled frame. When P
// binds without those function values (a json.RawMessage copy, a
// []json.RawMessage, binder_raw.go, the fast binder of a slice of
// numbers or of a struct of integers, binder_num.go) and R is a kind this file
// appends itself (nil interfaces, bools, integers, strings, an echoed
// json.RawMessage), the call needs no frame: P and R stay on the stack,
// and the pool's Get and Put are saved. Anything else on the way (params
// the fast binder gives up on, a non-nil interface result, a RawMessage
// that is not the params) goes through the frame as before, with the same
// results.

import (
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/marshal"
)

// resultKind is how the direct path appends a result R (resNone: it does
// not, every call takes a frame).
type resultKind uint8

const (
	resNone  resultKind = iota
	resIface            // an interface: nil is null, anything else through the frame
	resRaw              // json.RawMessage: the params echoed, anything else through the frame
	resBool
	resInt // signed integers, by size
	resInt8
	resInt16
	resInt32
	resInt64
	resUint // unsigned integers, by size
	resUint8
	resUint16
	resUint32
	resUint64
	resString
)

var resultKinds = map[reflect.Kind]resultKind{
	reflect.Bool: resBool, reflect.Int: resInt, reflect.Int8: resInt8, reflect.Int16: resInt16,
	reflect.Int32: resInt32, reflect.Int64: resInt64, reflect.Uint: resUint, reflect.Uint8: resUint8,
	reflect.Uint16: resUint16, reflect.Uint32: resUint32, reflect.Uint64: resUint64,
	reflect.Uintptr: resUint64, reflect.String: resString, reflect.Interface: resIface,
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// resultKindOf returns how the direct path appends a result of type t.
// Methods with value receivers (MarshalJSON, MarshalText) leave it to the
// compiled encoder; those with pointer receivers do not apply to a result
// (Typed encodes it as json.Marshal(r) does).
func resultKindOf(t reflect.Type) resultKind {
	if t == rawMessageType {
		return resRaw
	}
	if t.Kind() != reflect.Interface && (t.Implements(marshalerType) || t.Implements(textMarshalerType)) {
		return resNone
	}
	if t.Kind() == reflect.Uintptr && t.Size() != 8 {
		return resNone
	}
	return resultKinds[t.Kind()]
}

// direct reports whether b binds without the compiled decoder's function
// values, so that P can stay on the stack.
func (b *binder) direct() bool {
	return b.kind == bindRaw || b.num != numNone || b.raws || b.ints != nil
}

// bindDirect binds params to the P at p as bind does, without the
// compiled decoder; false: b cannot, bind must (p is left as it was).
func (b *binder) bindDirect(params []byte, p unsafe.Pointer) bool {
	switch {
	case len(params) == 0:
		return true
	case b.kind == bindRaw:
		*(*json.RawMessage)(p) = bytes.Clone(params)
		return true
	case b.raws:
		return bindRaws(params, p)
	case b.ints != nil:
		return b.bindIntStruct(params, p)
	}
	return b.bindNums(params, p)
}

// serveDirect is ServeRPC without a frame; ok is false when it cannot bind
// params directly (the caller binds them through a frame instead; the
// handler has not run).
func (h *typedHandler[P, R]) serveDirect(ctx context.Context, params, dst []byte) (out []byte, err error, ok bool) {
	var p P
	if !h.in.bindDirect(params, unsafe.Pointer(&p)) {
		return dst, nil, false
	}
	r, err := h.fn(ctx, p)
	if err != nil {
		return dst, err, true
	}
	if out, ok := appendDirect(dst, unsafe.Pointer(&r), h.res, params, h.res == resRaw && paramsCompact(ctx, h)); ok {
		return out, nil, true
	}
	out, err = h.appendFramed(dst, r)
	return out, err, true
}

// appendFramed appends r through the compiled encoder, from a pooled
// frame (so that r does not move to the heap).
func (h *typedHandler[P, R]) appendFramed(dst []byte, r R) ([]byte, error) {
	f := h.frames.Get().(*typedFrame[P, R])
	f.r = r
	out, err := h.out.Append(dst, unsafe.Pointer(&f.r))
	*f = typedFrame[P, R]{}
	h.frames.Put(f)
	if err != nil {
		return dst, resultError(err)
	}
	return out, nil
}

// appendDirect appends the result at p, of kind k, as the compiled encoder
// would; false: it is for the encoder (a non-nil interface, a RawMessage
// that is not the params). compact: the params hold no whitespace between
// tokens (paramsCompact).
func appendDirect(dst []byte, p unsafe.Pointer, k resultKind, params []byte, compact bool) ([]byte, bool) {
	switch k {
	case resIface:
		if (*[2]unsafe.Pointer)(p)[0] != nil { // a type word (eface) or itab (iface)
			return dst, false
		}
		return append(dst, "null"...), true
	case resRaw:
		r := *(*[]byte)(p)
		if len(r) == 0 || !bytes.Equal(r, params) {
			return dst, false
		}
		// The params byte for byte (an echo), which the engine's scanner
		// validated when it read the message: compacted, not checked again.
		return appendEcho(dst, r, compact), true
	case resBool:
		if *(*bool)(p) {
			return append(dst, "true"...), true
		}
		return append(dst, "false"...), true
	case resInt:
		return strconv.AppendInt(dst, int64(*(*int)(p)), 10), true
	case resInt8:
		return strconv.AppendInt(dst, int64(*(*int8)(p)), 10), true
	case resInt16:
		return strconv.AppendInt(dst, int64(*(*int16)(p)), 10), true
	case resInt32:
		return strconv.AppendInt(dst, int64(*(*int32)(p)), 10), true
	case resInt64:
		return strconv.AppendInt(dst, *(*int64)(p), 10), true
	case resUint:
		return strconv.AppendUint(dst, uint64(*(*uint)(p)), 10), true
	case resUint8:
		return strconv.AppendUint(dst, uint64(*(*uint8)(p)), 10), true
	case resUint16:
		return strconv.AppendUint(dst, uint64(*(*uint16)(p)), 10), true
	case resUint32:
		return strconv.AppendUint(dst, uint64(*(*uint32)(p)), 10), true
	case resUint64:
		return strconv.AppendUint(dst, *(*uint64)(p), 10), true
	case resString:
		return encode.AppendString(dst, *(*string)(p)), true
	}
	return dst, false
}

// appendEcho appends r, a result that is the call's params byte for byte
// (validated by the engine's scanner), as encoding/json marshals a
// json.RawMessage (compacted, without HTML escaping): as it is when the
// scanner saw no whitespace between its tokens (compact), else through the
// compactor.
func appendEcho(dst, r []byte, compact bool) []byte {
	if compact {
		return append(dst, r...)
	}
	return marshal.AppendValid(dst, r)
}
