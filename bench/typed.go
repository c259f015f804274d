package bench

import (
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
)

// SubtractArgs are the typed subtract's params (demo.SubtractArgs).
type SubtractArgs = demo.SubtractArgs

// RegisterTyped registers the methods of Cases as typed handlers, the way a
// user writes them: demo.RegisterTyped (subtract, echo, update and the other
// specification methods through dispatch.Typed and plain Register).
// BenchmarkEngineTyped runs Cases on them beside BenchmarkEngine's raw
// handlers.
func RegisterTyped(e *dispatch.Engine) error { return demo.RegisterTyped(e) }
