package bench

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

// RegisterTyped registers the methods of Cases as typed handlers, the way a
// user writes them (dispatch.Typed, plain Register: neither Inline nor
// Concurrent): subtract (SubtractArgs -> int), echo (json.RawMessage as
// received) and update ([]int -> null). BenchmarkEngineTyped runs Cases on
// them beside BenchmarkEngine's raw handlers.
func RegisterTyped(e *dispatch.Engine) error {
	for name, h := range map[string]dispatch.Handler{
		"subtract": dispatch.Typed(func(_ context.Context, a SubtractArgs) (int, error) {
			return a.Minuend - a.Subtrahend, nil
		}),
		"echo": dispatch.Typed(func(_ context.Context, p json.RawMessage) (json.RawMessage, error) {
			return p, nil
		}),
		"update": dispatch.Typed(func(_ context.Context, _ []int) (any, error) { return nil, nil }),
	} {
		if err := e.Register(name, h); err != nil {
			return err
		}
	}
	return nil
}
