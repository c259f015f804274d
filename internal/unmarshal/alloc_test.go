//go:build !race

package unmarshal

import (
	"reflect"
	"testing"
)

func allocs[T any](t *testing.T, in string, want float64) {
	t.Helper()
	d, err := Compile(reflect.TypeFor[T]())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(in)
	var v T
	n := testing.AllocsPerRun(100, func() {
		if err := DecodeInto(d, data, &v); err != nil {
			t.Fatal(err)
		}
	})
	if n != want {
		t.Errorf("%T %s: %v allocs, want %v", v, in, n, want)
	}
}

func TestAllocs(t *testing.T) {
	allocs[twoInts](t, `{"minuend":42,"subtrahend":23}`, 0)
	allocs[twoInts](t, `{"Minuend":42,"SUBTRAHEND":23,"other":[1,{"x":"y"}]}`, 0)
	allocs[[2]int](t, `[42,23]`, 0)
	allocs[flags](t, `{"A":true,"B":false,"X":1.5e10,"Y":-2.25}`, 0)
	allocs[oneString](t, `{"name":"subtract"}`, 1)
	allocs[oneString](t, `{"name":"caf\u00e9 \ud83d\ude00"}`, 1)
	allocs[[]int](t, `[1,2,3,4,5]`, 1)
	allocs[*twoInts](t, `{"minuend":1}`, 0) // the pointer is reused once set
}
