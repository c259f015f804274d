package dispatch_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/vectors"
)

func TestSpecVectors(t *testing.T) {
	e := newDemo(t, nil)
	vs, err := vectors.Spec()
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) < 20 {
		t.Fatalf("only %d vectors loaded", len(vs))
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			out := e.Process(nil, []byte(v.Request))
			if err := v.Check(out); err != nil {
				t.Fatalf("%s: %v", v.Request, err)
			}
		})
	}
}

// TestSpecVectorsCopy keeps the embedded copy in step with shared/vectors
// when the shared folder sits beside the checkout (as in CI).
func TestSpecVectorsCopy(t *testing.T) {
	shared, err := os.ReadFile("../../shared/vectors/spec.jsonl")
	if err != nil {
		t.Logf("shared vectors not beside the checkout (%v); using the embedded copy", err)
		return
	}
	if !bytes.Equal(shared, vectors.Raw()) {
		t.Fatal("internal/vectors/spec.jsonl differs from ../shared/vectors/spec.jsonl: copy it again")
	}
}

// TestSpecVectorsTyped: every vector passes through the typed demo methods
// too (demo.RegisterTyped), the way a user writes them.
func TestSpecVectorsTyped(t *testing.T) {
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	if err := demo.RegisterTyped(e); err != nil {
		t.Fatal(err)
	}
	vs, err := vectors.Spec()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			out := e.Process(nil, []byte(v.Request))
			if err := v.Check(out); err != nil {
				t.Fatalf("%s: %v", v.Request, err)
			}
		})
	}
}
