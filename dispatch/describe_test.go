package dispatch_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
)

func TestOnFreeze(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	raw := dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) { return append(dst, "1"...), nil })
	if err := e.RegisterMethod(dispatch.Method{Name: "a", Handler: raw, Inline: true}); err != nil {
		t.Fatal(err)
	}
	var seen []dispatch.Method
	err := e.OnFreeze(func(ms []dispatch.Method) []dispatch.Method {
		seen = ms
		return []dispatch.Method{
			{Name: "rpc.x", Handler: dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
				return append(dst, `"x"`...), nil
			})},
			{Name: "a", Handler: raw}, // taken: skipped
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Register("b", raw); err != nil { // after OnFreeze, before Freeze: seen too
		t.Fatal(err)
	}
	out := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"rpc.x","id":1}`))
	if want := `{"jsonrpc":"2.0","id":1,"result":"x"}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
	if len(seen) != 2 || !seen[0].Inline || seen[1].Name != "b" {
		t.Fatalf("hook saw %+v", seen)
	}
	if err := e.OnFreeze(func([]dispatch.Method) []dispatch.Method { return nil }); !errors.Is(err, dispatch.ErrFrozen) {
		t.Fatalf("OnFreeze after Freeze: %v", err)
	}
	ms := e.Methods()
	if len(ms) != 2 || ms[0].Name != "a" || ms[1].Name != "b" {
		t.Fatalf("Methods: %+v", ms)
	}
	ms[0].Name = "changed"
	if e.Methods()[0].Name != "a" {
		t.Fatal("Methods shares its slice")
	}
}

func TestTypesOf(t *testing.T) {
	type args struct{ A int }
	h := dispatch.Typed(func(context.Context, args) ([]string, error) { return nil, nil })
	p, r, ok := dispatch.TypesOf(h)
	if !ok || p != reflect.TypeFor[args]() || r != reflect.TypeFor[[]string]() {
		t.Fatalf("TypesOf = %v, %v, %v", p, r, ok)
	}
	if _, _, ok := dispatch.TypesOf(dispatch.HandlerFunc(nil)); ok {
		t.Fatal("a raw handler has no types")
	}
}
