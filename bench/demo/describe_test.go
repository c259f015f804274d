package demo_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/openrpc"
)

// TestDescribed: every demo method carries a summary and a result, and
// the document of Register's and RegisterTyped's methods builds.
func TestDescribed(t *testing.T) {
	for _, register := range []func(*dispatch.Engine) error{demo.Register, demo.RegisterTyped} {
		e := dispatch.New(nil)
		if err := register(e); err != nil {
			t.Fatal(err)
		}
		ms := e.Methods()
		for _, m := range ms {
			if m.Summary == "" && m.Result == nil && !isTyped(m) {
				t.Errorf("%s: no description", m.Name)
			}
		}
		if _, err := openrpc.Build(ms, nil); err != nil {
			t.Fatal(err)
		}
		e.Close()
	}
}

func isTyped(m dispatch.Method) bool {
	_, _, ok := dispatch.TypesOf(m.Handler)
	return ok
}
