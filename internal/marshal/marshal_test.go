package marshal

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// oracle is encoding/json with HTML escaping off (see the package doc).
func oracle(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// check encodes the value v points to and compares with the oracle.
func check(t *testing.T, v any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	e, err := Compile(rv.Type().Elem())
	if err != nil {
		t.Fatalf("Compile(%T): %v", v, err)
	}
	got, gerr := e.Append([]byte("x"), rv.UnsafePointer())
	want, werr := oracle(v)
	if (gerr != nil) != (werr != nil) {
		t.Fatalf("%T: err %v, oracle err %v", v, gerr, werr)
	}
	if werr == nil && string(got[1:]) != string(want) {
		t.Errorf("%T:\n got %s\nwant %s", v, got[1:], want)
	}
}

type small struct {
	A int
	B float64 `json:"b"`
	C bool    `json:"c,omitempty"`
	D string  `json:"-"`
	E string  `json:"-,"`
	F *int    `json:",omitempty"`
	G []int   `json:"g,omitempty"`
	h int
	I [2]float64
	J []byte
	K uint8 `json:"k<&>"`
}

type pair struct{ P, Q [2]float64 }

type node struct {
	V    int
	Next *node
}

func TestKinds(t *testing.T) {
	n := 7
	f := func(v any) { t.Helper(); check(t, v) }
	f(ptr(true))
	f(ptr(-42))
	f(ptr(int8(-128)))
	f(ptr(int16(300)))
	f(ptr(int32(-1 << 31)))
	f(ptr(int64(math.MinInt64)))
	f(ptr(uint(math.MaxUint)))
	f(ptr(uint8(255)))
	f(ptr(uint16(65535)))
	f(ptr(uint32(1 << 31)))
	f(ptr(uint64(math.MaxUint64)))
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -1.5, 1e-6, 1e-7, 1e20, 1e21, 123456789.123, math.MaxFloat64, math.SmallestNonzeroFloat64, 3e-9} {
		f(ptr(x))
		f(ptr(float32(x)))
	}
	f(ptr(math.NaN()))
	f(ptr(math.Inf(1)))
	f(ptr(float32(math.Inf(-1))))
	for _, s := range []string{"", "plain", "a\"b\\c\n\t\x01\x1f", "<a&b>", "\xff\xfe", "é€😀", "\u2028\u2029", "a\xc3"} {
		f(ptr(s))
	}
	f(ptr([]byte(nil)))
	f(ptr([]byte{}))
	f(ptr([]byte("hello, world\x00\xff")))
	f(ptr([]int(nil)))
	f(ptr([]int{}))
	f(ptr([]int{1, -2, 3}))
	f(ptr([3]string{"a", "b"}))
	f(ptr([0]int{}))
	f(ptr((*int)(nil)))
	f(ptr(&n))
	f(ptr(&small{}))
	f(ptr(small{A: 1, B: 2.5, C: true, D: "x", E: "y", F: &n, G: []int{1}, h: 3, I: [2]float64{1, 2}, J: []byte("z"), K: 9}))
	f(ptr(pair{[2]float64{1, 2}, [2]float64{3.25, -4}}))
	f(ptr(node{1, &node{2, &node{3, nil}}}))
	f(ptr([][]*int{{&n, nil}, nil, {}}))
	f(ptr(struct{}{}))
	f(ptr(any(nil)))
	f(ptr(any(1.5)))
	f(ptr([]any{"s", true, nil, 3, map[string]any{"k": []any{1, "x"}}, &n, small{A: 2}}))
	f(ptr(map[string]any(nil)))
	f(ptr(map[string]int(nil)))
	f(ptr(map[string]int{}))
	f(ptr(map[string]int{"b": 2, "a": 1, "<\xff": 3, "": 0}))
	f(ptr(map[int]string{10: "x", 9: "y", -1: "z"}))
	f(ptr(map[uint8][]int{2: {1}, 1: nil}))
	f(ptr(map[string]map[string]*small{"o": {"i": {A: 1}, "n": nil}}))
}

func ptr[T any](v T) *T { return &v }

func TestUnsupported(t *testing.T) {
	for _, v := range []any{make(chan int), func() {}, complex(1, 2), struct{ C chan int }{},
		map[bool]int{}, map[[2]int]int{}, map[any]int{}, map[float64]int{}, []struct{ F func() }{},
		map[string]struct {
			ptrM
			C chan int
		}{}} {
		if _, err := Compile(reflect.TypeOf(v)); err == nil {
			t.Errorf("Compile(%T): no error", v)
		}
	}
	for _, v := range []any{chanM(nil), struct {
		ptrM
		C chan int
	}{}} {
		if _, err := Compile(reflect.TypeOf(v)); err != nil {
			t.Errorf("Compile(%T): %v", v, err)
		}
	}
}

// chanM is a chan type with MarshalJSON: encoded by the method.
type chanM chan int

func (chanM) MarshalJSON() ([]byte, error) { return []byte("1"), nil }

func TestTypeMismatch(t *testing.T) {
	e, _ := CompileFor[int]()
	if _, err := AppendValue(e, nil, ptr("x")); err == nil {
		t.Error("no error for a string with an int encoder")
	}
	got, err := AppendValue(e, nil, ptr(5))
	if err != nil || string(got) != "5" {
		t.Errorf("got %s, %v", got, err)
	}
}
