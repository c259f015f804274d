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
	for _, m := range typedMethods() {
		if err := e.Register(m.Name, m.Handler); err != nil {
			return err
		}
	}
	return nil
}

// typedMethods are RegisterTyped's methods, neither Inline nor Concurrent.
func typedMethods() []dispatch.Method {
	ignore := dispatch.Typed(func(_ context.Context, _ []int) (any, error) { return nil, nil })
	return []dispatch.Method{
		{Name: "subtract", Handler: dispatch.Typed(func(_ context.Context, a SubtractArgs) (int, error) {
			return a.Minuend - a.Subtrahend, nil
		})},
		{Name: "sum", Handler: dispatch.Typed(func(_ context.Context, xs []float64) (float64, error) {
			var s float64
			for _, x := range xs {
				s += x
			}
			return s, nil
		})},
		{Name: "update", Handler: ignore},
		{Name: "notify_hello", Handler: ignore},
		{Name: "notify_sum", Handler: ignore},
		{Name: "get_data", Handler: dispatch.Typed(func(_ context.Context, _ struct{}) ([]any, error) {
			return []any{"hello", 5}, nil
		})},
		{Name: "echo", Handler: dispatch.Typed(func(_ context.Context, p json.RawMessage) (json.RawMessage, error) {
			return p, nil
		})},
	}
}
