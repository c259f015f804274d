package demo

import (
	"context"
	"encoding/json"

	"github.com/jetrpc/jetrpc/dispatch"
)

// SubtractArgs are subtract's params as a user of dispatch.Typed writes
// them: by name through the json tags, by position in field order.
type SubtractArgs struct {
	Minuend    int `json:"minuend"`
	Subtrahend int `json:"subtrahend"`
}

// RegisterTyped registers the specification's example methods as typed
// handlers, written the way a user writes them (dispatch.Typed, plain
// Register: neither Inline nor Concurrent): subtract (SubtractArgs -> int),
// sum ([]float64 -> float64), update, notify_hello and notify_sum ([]int ->
// null), get_data (-> ["hello", 5]) and echo (json.RawMessage, returned as
// received). The typed benchmarks run on them, and the specification's
// vectors pass through them as through Register's raw handlers.
func RegisterTyped(e *dispatch.Engine) error {
	ignore := dispatch.Typed(func(_ context.Context, _ []int) (any, error) { return nil, nil })
	for _, m := range []struct {
		name string
		h    dispatch.Handler
	}{
		{"subtract", dispatch.Typed(func(_ context.Context, a SubtractArgs) (int, error) {
			return a.Minuend - a.Subtrahend, nil
		})},
		{"sum", dispatch.Typed(func(_ context.Context, xs []float64) (float64, error) {
			var s float64
			for _, x := range xs {
				s += x
			}
			return s, nil
		})},
		{"update", ignore},
		{"notify_hello", ignore},
		{"notify_sum", ignore},
		{"get_data", dispatch.Typed(func(_ context.Context, _ struct{}) ([]any, error) {
			return []any{"hello", 5}, nil
		})},
		{"echo", dispatch.Typed(func(_ context.Context, p json.RawMessage) (json.RawMessage, error) {
			return p, nil
		})},
	} {
		if err := e.Register(m.name, m.h); err != nil {
			return err
		}
	}
	return nil
}
