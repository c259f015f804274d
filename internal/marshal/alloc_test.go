//go:build !race

package marshal

import (
	"encoding/json"
	"testing"
	"unsafe"
)

type flat struct {
	A, B int
	X    float64
	Ok   bool
	S    string `json:"s"`
}

type rawResult struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
}

type embedAlloc struct {
	Inner
	*Deep
	N json.Number `json:"n"`
	Q int         `json:"q,string"`
	S string      `json:"s,string"`
	Z zeroer      `json:"z,omitzero"`
	P ptrZeroer   `json:"p,omitzero"`
	W withFloat   `json:"w,omitzero"`
	F float64     `json:"f,omitzero"`
}

// allocs runs encoder e on p and returns the allocations per run; an error
// fails the test.
func allocs(t *testing.T, e *Encoder, p unsafe.Pointer) float64 {
	t.Helper()
	dst := make([]byte, 0, 4096)
	var err error
	n := testing.AllocsPerRun(100, func() { dst, err = e.Append(dst[:0], p) })
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func allocsOf[T any](t *testing.T, v T) float64 {
	t.Helper()
	e, err := CompileFor[T]()
	if err != nil {
		t.Fatal(err)
	}
	return allocs(t, e, unsafe.Pointer(&v))
}

func TestAppendDoesNotAllocate(t *testing.T) {
	f := func(name string, n float64) {
		t.Helper()
		if n != 0 {
			t.Errorf("%s: %v allocs per run", name, n)
		}
	}
	f("int", allocsOf(t, 42))
	f("struct", allocsOf(t, flat{1, 2, 3.5, true, "x\"y"}))
	f("pair", allocsOf(t, pair{[2]float64{1, 2}, [2]float64{3, 4}}))
	f("[]int", allocsOf(t, []int{1, 2, 3}))
	f("raw", allocsOf(t, rawResult{1, json.RawMessage(`{"a":[1,2,"x"],"b":null}`)}))
	f("raw spaced", allocsOf(t, rawResult{1, json.RawMessage(" {\"a\" : [1, 2,\n\"x\"] } ")}))
	f("raw nil", allocsOf(t, rawResult{1, nil}))
	f("embedded, number, string, omitzero", allocsOf(t, embedAlloc{Inner: Inner{1, 2, 3}, Deep: &Deep{}, N: "1.5", Q: 2,
		S: `a"b`, Z: zeroer{42}, P: ptrZeroer{1}, W: withFloat{1}}))
}

// TestMethodAllocs pins what the method paths allocate: the method's own
// result and nothing more.
func TestMethodAllocs(t *testing.T) {
	f := func(name string, n, want float64) {
		t.Helper()
		if n != want {
			t.Errorf("%s: %v allocs per run, want %v", name, n, want)
		}
	}
	f("MarshalJSON (value receiver, returns a new slice)", allocsOf(t, valM(`{"a": 1}`)), 1)
	f("MarshalJSON (pointer receiver)", allocsOf(t, ptrM{1}), 1)
	f("MarshalText", allocsOf(t, ptrT{"x"}), 1)
	// 4 per map (see mapEnc), then per key the method's result and a string.
	f("map[intKey]int, 2 keys", allocsOf(t, map[intKey]int{1: 1, 2: 2}), 8)
}
