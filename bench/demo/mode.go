package demo

import (
	"fmt"
	"strings"

	"github.com/jetrpc/jetrpc/dispatch"
)

// Mode is how RegisterAs registers the demo methods. The three answer the
// same for the same message (Typed's -32602 answers carry error.data of
// their own); they differ in the path a call takes through the engine and
// the server, which is what the benchmarks compare.
type Mode uint8

const (
	// Inline is what Register does: raw handlers, the cheap ones marked
	// Method.Inline (they may run on a connection's reading goroutine).
	// The published figures before issue 29 were all of this mode.
	Inline Mode = iota
	// Default is the same raw handlers registered the way a user gets
	// without asking: RegisterMethod with Inline false, as plain Register
	// does.
	Default
	// Typed is what a user who writes dispatch.Typed handlers gets:
	// RegisterTyped's handlers (subtract, sum, update, notify_hello,
	// notify_sum, get_data, echo) with plain Register, and the other
	// demo methods as in Default.
	Typed
)

// Modes are the three modes in the order the benchmarks report them.
func Modes() []Mode { return []Mode{Inline, Default, Typed} }

var modeNames = [...]string{Inline: "inline", Default: "default", Typed: "typed"}

// String is the mode's name: inline, default or typed.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", m)
}

// ParseMode returns the mode named s (inline, default or typed).
func ParseMode(s string) (Mode, error) {
	for m, name := range modeNames {
		if s == name {
			return Mode(m), nil
		}
	}
	return 0, fmt.Errorf("demo: unknown mode %q (want %s)", s, strings.Join(modeNames[:], ", "))
}

// RegisterAs registers the demo methods on e the way m says (Docs
// describes the raw ones; the typed handlers' are derived from their
// types).
func RegisterAs(e *dispatch.Engine, m Mode) error {
	if m > Typed {
		return fmt.Errorf("demo: unknown mode %d", m)
	}
	typed := map[string]dispatch.Handler{}
	if m == Typed {
		for _, t := range typedMethods() {
			typed[t.Name] = t.Handler
		}
	}
	for _, raw := range rawMethods() {
		if m != Inline {
			raw.Inline = false
		}
		method := raw
		if h, ok := typed[raw.Name]; ok {
			method = dispatch.Method{Name: raw.Name, Handler: h}
		}
		if err := e.RegisterMethod(method); err != nil {
			return err
		}
	}
	return nil
}
