package dispatch

import (
	"context"

	"github.com/bytedance/sonic"
	"github.com/jetrpc/jetrpc/encode"
)

// Typed adapts fn to a Handler. Params bind to P with sonic: an object by
// name (json tags), an array by position (the exported fields of a struct P
// in declaration order; the elements of a slice or array P; the single
// element of any other P). Params that do not fit P are -32602 Invalid params
// with error.data naming the parameter and the problem. The result is
// encoded with sonic. Typed handlers allocate; use a raw Handler where every
// allocation counts.
func Typed[P, R any](fn func(ctx context.Context, p P) (R, error)) Handler {
	return &typedHandler[P, R]{fn: fn, b: newBinder[P]()}
}

type typedHandler[P, R any] struct {
	fn func(context.Context, P) (R, error)
	b  *binder
}

func (h *typedHandler[P, R]) ServeRPC(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p P
	if err := h.b.bind(params, &p); err != nil {
		return dst, err
	}
	r, err := h.fn(ctx, p)
	if err != nil {
		return dst, err
	}
	out, err := sonic.Marshal(r)
	if err != nil {
		return dst, NewError(encode.CodeInternalError, encode.CodeInternalError.String(), quoteText("cannot encode result: "+err.Error()))
	}
	return append(dst, out...), nil
}
