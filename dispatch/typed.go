package dispatch

import (
	"bytes"
	"context"
	"reflect"
	"sync"
	"unsafe"

	"github.com/bytedance/sonic"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/marshal"
)

// Typed adapts fn to a Handler that binds params to P and encodes R.
//
// Params bind with encoding/json's rules: an object by name (json tags,
// matched case-insensitively; unknown members are ignored), an array by
// position (the exported fields of a struct P in declaration order, embedded
// structs flattened, fewer params leaving the rest zero; the elements of a
// slice or array P; the single element of any other P). A *struct P is never
// nil. Params that do not fit P are -32602 Invalid params, with error.data
// naming the parameter ({"index":0,"param":"minuend","error":"..."}).
//
// The decoder of P and the encoder of R are compiled once, here, by
// internal packages that fill and read values through field offsets, so a
// call pays no reflection, boxing or intermediate buffer: params and results
// of numbers, bools, fixed arrays and structs of them allocate nothing;
// each string, slice, map or pointer in P costs its own allocation (a
// slice of numbers is parsed straight into one of its exact size; a
// []json.RawMessage costs two however many elements it has: one copy of
// the params, which its elements slice, and the slice). Nothing
// in P aliases the message or is reused by a later call, so fn may keep
// what it is given. The result is
// appended to the response as json.Marshal(r) would write it (without HTML
// escaping): methods of R with pointer receivers do not apply to r.
//
// A P or R the compiled codecs do not support (kinds encoding/json cannot
// handle either, such as a struct with a chan field) falls back to sonic,
// with the same rules, at a few allocations per call.
func Typed[P, R any](fn func(ctx context.Context, p P) (R, error)) Handler {
	h := &typedHandler[P, R]{fn: fn, in: newBinder[P]()}
	if h.in == nil {
		h.slow = newSonicBinder[P]()
	}
	if enc, err := marshal.CompileValue(reflect.TypeFor[R]()); err == nil {
		h.out = enc
	}
	h.rawOut = reflect.TypeFor[R]() == rawMessageType
	if h.in != nil && h.in.direct() && h.out != nil {
		h.res = resultKindOf(reflect.TypeFor[R]())
	}
	h.frames.New = func() any { return new(typedFrame[P, R]) }
	return h
}

type typedHandler[P, R any] struct {
	fn     func(context.Context, P) (R, error)
	rawOut bool             // R is json.RawMessage: a result that is the params byte for byte needs no check
	in     *binder          // nil: slow binds
	slow   *sonicBinder     // the fallback binder
	out    *marshal.Encoder // nil: sonic encodes
	res    resultKind       // resNone: every call goes through a frame (typed_direct.go)
	frames sync.Pool        // *typedFrame[P, R]
}

// typedFrame holds a call's params and result. They live in a pooled frame,
// not on the stack, because the compiled codecs take their address through
// function values, which would move them to the heap on every call.
type typedFrame[P, R any] struct {
	p P
	r R
}

func (h *typedHandler[P, R]) ServeRPC(ctx context.Context, params, dst []byte) ([]byte, error) {
	if h.res != resNone {
		if out, err, ok := h.serveDirect(ctx, params, dst); ok {
			return out, err
		}
	}
	f := h.frames.Get().(*typedFrame[P, R])
	out, err := h.serve(ctx, f, params, dst)
	*f = typedFrame[P, R]{} // keep nothing of the call alive in the pool
	h.frames.Put(f)
	return out, err
}

func (h *typedHandler[P, R]) serve(ctx context.Context, f *typedFrame[P, R], params, dst []byte) ([]byte, error) {
	var err error
	if h.in != nil {
		err = h.in.bind(params, unsafe.Pointer(&f.p))
	} else {
		err = h.slow.bind(params, &f.p)
	}
	if err != nil {
		return dst, err
	}
	if f.r, err = h.fn(ctx, f.p); err != nil {
		return dst, err
	}
	if h.rawOut {
		if r := *(*[]byte)(unsafe.Pointer(&f.r)); len(r) > 0 && bytes.Equal(r, params) {
			// The params byte for byte (an echo), which the engine's scanner validated when
			// it read the message: compacted, not checked again (a memcmp costs a fraction of
			// the check), or as they are when the scanner saw them compact.
			return appendEcho(dst, r, paramsCompact(ctx, h)), nil
		}
	}
	if h.out != nil {
		out, err := h.out.Append(dst, unsafe.Pointer(&f.r))
		if err != nil {
			return dst, resultError(err)
		}
		return out, nil
	}
	out, err := sonic.Marshal(f.r)
	if err != nil {
		return dst, resultError(err)
	}
	return append(dst, out...), nil
}

// strict returns a copy of h whose binder refuses unknown named params
// (Method.StrictParams), or h when it does not bind a struct.
func (h *typedHandler[P, R]) strict() Handler {
	if h.in == nil || h.in.kind != bindStruct || h.in.strict {
		return h
	}
	in := *h.in
	in.strict = true
	c := &typedHandler[P, R]{fn: h.fn, in: &in, slow: h.slow, out: h.out, rawOut: h.rawOut, res: h.res}
	c.frames.New = func() any { return new(typedFrame[P, R]) }
	return c
}

// trustedResult: a compiled encoder writes valid JSON, so the engine need
// not check the result (sonic, the fallback, is checked like a raw handler).
func (h *typedHandler[P, R]) trustedResult() bool { return h.out != nil }

// trustsResult reports whether h is a handler whose results are known to
// be valid JSON (a Typed handler with a compiled encoder).
func trustsResult(h Handler) bool {
	t, ok := h.(interface{ trustedResult() bool })
	return ok && t.trustedResult()
}

func resultError(err error) error {
	return NewError(encode.CodeInternalError, encode.CodeInternalError.String(), quoteText("cannot encode result: "+err.Error()))
}
