//go:build !race

package unmarshal

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
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

type numbers struct {
	I  int        `json:"i"`
	U8 uint8      `json:"u8"`
	F  float64    `json:"f"`
	B  bool       `json:"b"`
	A  [3]int     `json:"a"`
	P  [2]float32 `json:"p"`
	In struct {
		X int16
		Y bool
	} `json:"in"`
}

type threeStrings struct{ A, B, C string }

type twoSlices struct {
	X []int `json:"x"`
	Y []int `json:"y"`
}

type rawField struct {
	R json.RawMessage `json:"r"`
}

func TestAllocs(t *testing.T) {
	allocs[twoInts](t, `{"minuend":42,"subtrahend":23}`, 0)
	allocs[twoInts](t, `{"Minuend":42,"SUBTRAHEND":23,"other":[1,{"x":"y"}]}`, 0)
	allocs[[2]int](t, `[42,23]`, 0)
	allocs[flags](t, `{"A":true,"B":false,"X":1.5e10,"Y":-2.25}`, 0)
	allocs[numbers](t, `{"i":-7,"u8":255,"f":0.5,"b":true,"a":[1,2,3],"p":[1.5,2],"in":{"X":3,"Y":true}}`, 0)
	allocs[*twoInts](t, `{"minuend":1}`, 0) // the pointer is reused once set

	// A string is one allocation (its bytes), "" none.
	allocs[oneString](t, `{"name":"subtract"}`, 1)
	allocs[oneString](t, `{"name":"caf\u00e9 \ud83d\ude00"}`, 1)
	allocs[oneString](t, `{"name":"bad `+"\xff\xfe"+` utf-8"}`, 1)
	allocs[oneString](t, `{"name":""}`, 0)
	allocs[threeStrings](t, `{"A":"aa","B":"b\n","C":"ccc"}`, 3)
	allocs[threeStrings](t, `{"A":"a","B":"b","C":""}`, 0) // the runtime has every 1-byte string
	allocs[json.Number](t, `-12.5e3`, 1)

	// A slice is one allocation (its backing array, sized by counting).
	allocs[[]int](t, `[1,2,3,4,5]`, 1)
	allocs[twoSlices](t, `{"x":[1,2,3],"y":[4]}`, 2)
	allocs[[]int](t, `[]`, 0)

	// A RawMessage is one allocation (the copy), null included.
	allocs[rawField](t, `{"r":{"a":[1,2,{"b":null}]}}`, 1)
	allocs[rawField](t, `{"r":null}`, 1)
	allocs[json.RawMessage](t, `[1, 2]`, 1)
}

// allocsFresh is allocs with the target zeroed before each run.
func allocsFresh[T any](t *testing.T, in string, want float64) {
	t.Helper()
	d, err := Compile(reflect.TypeFor[T]())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(in)
	var v T
	n := testing.AllocsPerRun(100, func() {
		v = *new(T)
		if err := DecodeInto(d, data, &v); err != nil {
			t.Fatal(err)
		}
	})
	if n != want {
		t.Errorf("%T %s: %v allocs, want %v", v, in, n, want)
	}
}

var mapSink any

// mapAllocs is what the map itself costs in Go code: make(map[K]V, n) and
// n insertions of keys that are already allocated.
func mapAllocs[K comparable, V any](n int, key func(int) K) float64 {
	keys := make([]K, n)
	for i := range keys {
		keys[i] = key(i)
	}
	return testing.AllocsPerRun(100, func() {
		m := make(map[K]V, n)
		var zero V
		for _, k := range keys {
			m[k] = zero
		}
		mapSink = m
	})
}

func strKeyOf(i int) string { return "key" + strconv.Itoa(i) }

// members builds {"key0":v,"key1":v,...}.
func members(n int, v string) string {
	s := "{"
	for i := range n {
		if i > 0 {
			s += ","
		}
		s += `"key` + strconv.Itoa(i) + `":` + v
	}
	return s + "}"
}

// TestMapAllocs: a new map costs what make(map, n) costs (the decoder
// counts the members first), plus one allocation per key string and the
// elements' own memory; an existing map costs only the keys.
func TestMapAllocs(t *testing.T) {
	for _, n := range []int{0, 3, 8, 9, 100} {
		nf := float64(n)
		allocsFresh[map[string]int](t, members(n, "7"), mapAllocs[string, int](n, strKeyOf)+nf)
		allocsFresh[map[string]string](t, members(n, `"val"`), mapAllocs[string, string](n, strKeyOf)+2*nf)
		allocsFresh[map[string]*twoInts](t, members(n, `{"minuend":1}`), mapAllocs[string, *twoInts](n, strKeyOf)+2*nf)
		allocsFresh[map[string]bool](t, members(n, `null`), mapAllocs[string, bool](n, strKeyOf)+nf)
		in := strings.ReplaceAll(members(n, "7"), "key", "1")
		allocsFresh[map[int]int](t, in, mapAllocs[int, int](n, func(i int) int { return 10 + i }))
		u8 := func(i int) uint8 { return uint8(i) }
		allocsFresh[map[uint8]float64](t, strings.ReplaceAll(members(min(n, 9), "1.5"), "key", ""), mapAllocs[uint8, float64](min(n, 9), u8))
	}
	allocs[map[string]int](t, members(9, "7"), 9) // reused: the keys only
	allocs[map[int16]int](t, `{"1":1,"-2":2,"3":3}`, 0)
}

func TestBytesAllocs(t *testing.T) {
	allocs[[]byte](t, `"aGVsbG8gd29ybGQ="`, 1)
	allocs[[]byte](t, `"aGVsbG8gd29ybGQ\u003d"`, 2)
}
