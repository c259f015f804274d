package rpcmsg

// NOTE: Go params and results go through the compiled codecs of
// internal/marshal and internal/unmarshal. A value arrives as an `any`: its
// dynamic type is looked up once per call in a cache of codecs (sync.Maps
// keyed by reflect.Type, each entry built on first sight, failures
// included), and the value's address is read from the interface's data
// word, which is either a pointer to the value or, for a pointer-shaped
// type, the value itself (the codec knows which). A type that Compile
// rejects gets sonic instead, once and for all.

import (
	"encoding/json"
	"reflect"
	"sync"
	"unsafe"

	"github.com/bytedance/sonic"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/marshal"
	"github.com/jetrpc/jetrpc/internal/unmarshal"
)

// eface is the layout of an empty interface in the gc toolchain: the
// dynamic type and the data word.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// dataWord returns the data word of *v.
func dataWord(v *any) unsafe.Pointer { return (*eface)(unsafe.Pointer(v)).data }

// paramsCodec encodes the values of one dynamic type.
type paramsCodec struct {
	enc *marshal.Encoder // nil: sonic (Compile rejected the type)
	// word: the value is the data word itself (a pointer-shaped type that
	// is not a pointer: a map, a struct of one pointer); the encoder needs
	// its address, a copy of the word, which costs one word of allocation.
	// Otherwise the data word is the value's address: a boxed value's, or
	// for a pointer type *T the pointee's (enc is then T's, and a nil
	// pointer is null).
	word bool
}

// resultCodec decodes into the pointee of one pointer type.
type resultCodec struct {
	dec *unmarshal.Decoder // nil: sonic (Compile rejected the type)
}

// The codecs by type, for the life of the process, as internal/marshal and
// internal/unmarshal keep theirs; unlike theirs, these also remember the
// types that Compile rejected (sonic's), so that those are not compiled
// again on every call.
var (
	paramsCodecs sync.Map // reflect.Type -> *paramsCodec
	resultCodecs sync.Map // reflect.Type (a pointer type) -> *resultCodec
)

func paramsCodecOf(t reflect.Type) *paramsCodec {
	if pc, ok := paramsCodecs.Load(t); ok {
		return pc.(*paramsCodec)
	}
	pc, _ := paramsCodecs.LoadOrStore(t, newParamsCodec(t, marshal.Compile))
	return pc.(*paramsCodec)
}

// newParamsCodec builds the codec of t with compile (marshal.Compile; tests
// pass one that fails to exercise the fallback).
func newParamsCodec(t reflect.Type, compile func(reflect.Type) (*marshal.Encoder, error)) *paramsCodec {
	et, word := t, false
	switch {
	case t.Kind() == reflect.Pointer:
		et = t.Elem()
	case marshal.DirectIface(t):
		word = true
	}
	enc, err := compile(et)
	if err != nil {
		return &paramsCodec{}
	}
	return &paramsCodec{enc: enc, word: word}
}

func resultCodecOf(t reflect.Type) *resultCodec {
	if rc, ok := resultCodecs.Load(t); ok {
		return rc.(*resultCodec)
	}
	rc, _ := resultCodecs.LoadOrStore(t, newResultCodec(t, unmarshal.Compile))
	return rc.(*resultCodec)
}

// newResultCodec builds the codec of the pointer type t with compile
// (unmarshal.Compile; tests pass one that fails).
func newResultCodec(t reflect.Type, compile func(reflect.Type) (*unmarshal.Decoder, error)) *resultCodec {
	dec, err := compile(t.Elem())
	if err != nil {
		return &resultCodec{}
	}
	return &resultCodec{dec: dec}
}

// AppendParams appends the JSON of params to dst: with the encoder that
// internal/marshal compiles once for its type (the output of encoding/json
// with HTML escaping off), or with sonic.Marshal for a type that
// internal/marshal does not support (see its package doc). nil, and
// anything that encodes to null, appends nothing; bad is returned for a
// value that encodes to neither an array nor an object. On error dst is
// returned unchanged.
//
// Passing a pointer (&v) costs no allocation beyond what encoding v itself
// needs; a value that is not pointer-shaped was boxed by the caller, and a
// pointer-shaped one that is not a pointer (a map) costs one word.
func AppendParams(dst []byte, params any, bad error) ([]byte, error) {
	if params == nil {
		return dst, nil
	}
	n := len(dst)
	out, err := paramsCodecOf(reflect.TypeOf(params)).append(dst, params)
	if err != nil {
		return dst, err
	}
	v := out[n:]
	if string(v) == "null" {
		return out[:n], nil
	}
	if err := CheckParams(v, bad); err != nil {
		return out[:n], err
	}
	return out, nil
}

// append appends the JSON of params, a non-nil value of pc's type.
func (pc *paramsCodec) append(dst []byte, params any) ([]byte, error) {
	if pc.enc == nil {
		raw, err := sonic.Marshal(params)
		if err != nil {
			return dst, err
		}
		return append(dst, raw...), nil
	}
	p := dataWord(&params)
	if pc.word {
		w := p
		p = unsafe.Pointer(&w)
	} else if p == nil { // a nil *T
		return append(dst, "null"...), nil
	}
	return pc.enc.Append(dst, p)
}

// MarshalParams is AppendParams into a new slice: nil when params are left
// out.
func MarshalParams(params any, bad error) ([]byte, error) {
	raw, err := AppendParams(nil, params, bad)
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	return raw, nil
}

// paramsKey is what encode writes before params, and messageTail after.
const (
	paramsKey   = `,"params":`
	messageTail = '}'
)

// AppendRequest is encode.AppendRequest with params encoded by
// AppendParams straight into dst (no intermediate buffer). On error dst is
// returned unchanged.
func AppendRequest(dst, id []byte, method string, params any, bad error) ([]byte, error) {
	n := len(dst)
	return appendWithParams(encode.AppendRequest(dst, id, method, nil), n, params, bad)
}

// AppendNotification is encode.AppendNotification with params encoded as
// by AppendRequest.
func AppendNotification(dst []byte, method string, params any, bad error) ([]byte, error) {
	n := len(dst)
	return appendWithParams(encode.AppendNotification(dst, method, nil), n, params, bad)
}

// appendWithParams reopens the message that encode wrote at b[n:] without
// params (it ends with messageTail) and adds params to it.
func appendWithParams(b []byte, n int, params any, bad error) ([]byte, error) {
	if params == nil {
		return b, nil
	}
	b = append(b[:len(b)-1], paramsKey...)
	mark := len(b)
	b, err := AppendParams(b, params, bad)
	if err != nil {
		return b[:n], err
	}
	if len(b) == mark { // left out (null)
		b = b[:mark-len(paramsKey)]
	}
	return append(b, messageTail), nil
}

// CheckResult reports whether result can take a result: nil (discard it)
// or a non-nil pointer; otherwise it returns a *json.InvalidUnmarshalError,
// as encoding/json and sonic do.
func CheckResult(result any) error {
	if result == nil {
		return nil
	}
	if t := reflect.TypeOf(result); t.Kind() != reflect.Pointer || dataWord(&result) == nil {
		return &json.InvalidUnmarshalError{Type: t}
	}
	return nil
}

// DecodeResult decodes the raw JSON result, which decode validated (a
// response's result member), into result (a non-nil pointer, or nil to
// discard it) with the decoder that internal/unmarshal compiles
// once for the pointee's type (encoding/json's semantics; strings and
// slices own their memory, so raw may be reused afterwards), or with
// sonic.Unmarshal for a type that internal/unmarshal does not support (see
// its package doc). A result that does not fit is an error, *unmarshal.Error
// (or sonic's); a bad target a *json.InvalidUnmarshalError.
func DecodeResult(raw []byte, result any) error {
	if err := CheckResult(result); err != nil || result == nil {
		return err
	}
	return resultCodecOf(reflect.TypeOf(result)).decode(raw, result)
}

// decode decodes raw into result, a non-nil pointer of rc's type.
func (rc *resultCodec) decode(raw []byte, result any) error {
	if rc.dec == nil {
		return sonic.Unmarshal(raw, result)
	}
	return rc.dec.DecodeValid(raw, dataWord(&result))
}
