package demo_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/openrpc"
)

// TestDescribed: every demo method carries a summary and a result (in
// Docs), every description is of a method Register registers, and the
// document of Register's and RegisterTyped's methods builds.
func TestDescribed(t *testing.T) {
	docs := demo.Docs()
	for _, register := range []func(*dispatch.Engine) error{demo.Register, demo.RegisterTyped} {
		e := dispatch.New(nil)
		if err := register(e); err != nil {
			t.Fatal(err)
		}
		ms := e.Methods()
		for _, m := range ms {
			if d := docs[m.Name]; d.Summary == "" && d.Result == nil && !isTyped(m) {
				t.Errorf("%s: no description", m.Name)
			}
		}
		if _, err := openrpc.Build(ms, &openrpc.Options{Methods: docs}); err != nil {
			t.Fatal(err)
		}
		e.Close()
	}
	e := dispatch.New(nil)
	defer e.Close()
	_ = demo.Register(e)
	registered := map[string]bool{}
	for _, m := range e.Methods() {
		registered[m.Name] = true
	}
	for name := range docs {
		if !registered[name] {
			t.Errorf("Docs describes %q, which Register does not register", name)
		}
	}
}

func isTyped(m dispatch.Method) bool {
	_, _, ok := dispatch.TypesOf(m.Handler)
	return ok
}
