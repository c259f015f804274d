//go:build !race

package dispatch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/dispatch"
)

// TestTypedAllocs: a typed handler allocates only what its params need:
// nothing for numbers, bools, fixed arrays and structs of them (the small,
// named and batch10 bench cases, and a notification of a fixed array), one
// allocation per string, slice, pointer and RawMessage copy (two for a
// []json.RawMessage: the params' copy and the slice).
func TestTypedAllocs(t *testing.T) {
	type flat struct {
		A  int      `json:"a"`
		F  float64  `json:"f"`
		OK bool     `json:"ok"`
		V  [3]uint8 `json:"v"`
		P  [2]point `json:"p"`
	}
	type named struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	}
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	if err := bench.RegisterTyped(e); err != nil {
		t.Fatal(err)
	}
	reg := func(name string, h dispatch.Handler) {
		if err := e.Register(name, h); err != nil {
			t.Fatal(err)
		}
	}
	reg("flat", dispatch.Typed(func(_ context.Context, f flat) (flat, error) { return f, nil }))
	reg("fixed", dispatch.Typed(func(_ context.Context, _ [5]int) (any, error) { return nil, nil }))
	reg("ptr", dispatch.Typed(func(_ context.Context, f *flat) (int, error) { return f.A, nil }))
	reg("hello", dispatch.Typed(func(_ context.Context, n named) (string, error) { return n.Name, nil }))
	reg("len", dispatch.Typed(func(_ context.Context, xs []int) (int, error) { return len(xs), nil }))
	reg("rawlen", dispatch.Typed(func(_ context.Context, r json.RawMessage) (int, error) { return len(r), nil }))
	reg("raws", dispatch.Typed(func(_ context.Context, rs []json.RawMessage) (int, error) { return len(rs), nil }))
	for _, c := range bench.Cases() {
		want := 0.0
		switch c.Name {
		case "large": // echo: the RawMessage params' copy
			want = 1
		case "notification": // update: []int, the slice
			want = 1
		}
		checkAllocs(t, e, c.Name, c.Msg, want)
	}
	for _, c := range []struct {
		msg  string
		want float64
	}{
		{`{"jsonrpc":"2.0","method":"flat","params":{"a":1,"f":2.5,"ok":true,"v":[1,2,3],"p":[{"X":1},{"Y":2}]},"id":1}`, 0},
		{`{"jsonrpc":"2.0","method":"flat","params":[1,2.5,true,[1,2,3]],"id":"x"}`, 0},
		{`{"jsonrpc":"2.0","method":"fixed","params":[1,2,3,4,5]}`, 0},
		{`[{"jsonrpc":"2.0","method":"flat","params":[1],"id":1},{"jsonrpc":"2.0","method":"flat","params":[2],"id":2}]`, 0},
		{`{"jsonrpc":"2.0","method":"ptr","params":[1],"id":1}`, 1},
		{`{"jsonrpc":"2.0","method":"hello","params":{"name":"bob","n":1},"id":1}`, 1},
		{`{"jsonrpc":"2.0","method":"hello","params":{"name":"","n":1},"id":1}`, 0},
		{`{"jsonrpc":"2.0","method":"len","params":[1,2,3],"id":1}`, 1},
		{`{"jsonrpc":"2.0","method":"rawlen","params":[1,2,3],"id":1}`, 1},
		// One copy of the params and the slice, however many elements.
		{`{"jsonrpc":"2.0","method":"raws","params":[1,"two",{"three":[3]},null],"id":1}`, 2},
		{`{"jsonrpc":"2.0","method":"raws","params":[],"id":1}`, 0},
	} {
		checkAllocs(t, e, c.msg, []byte(c.msg), c.want)
	}
}

func checkAllocs(t *testing.T, e *dispatch.Engine, name string, msg []byte, want float64) {
	t.Helper()
	dst := make([]byte, 0, 8192)
	for range 100 {
		dst = e.Process(dst[:0], msg)
	}
	if got := testing.AllocsPerRun(1000, func() { dst = e.Process(dst[:0], msg) }); got != want {
		t.Errorf("%s: %v allocs per Process, want %v (response %s)", name, got, want, dst)
	}
}
