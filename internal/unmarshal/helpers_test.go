package unmarshal

import (
	"encoding/json"
	"reflect"
	"testing"
	"unsafe"
)

// check decodes in into a fresh T with both this package and encoding/json
// and requires the same outcome; wantErr says whether both must fail.
func check[T any](t *testing.T, in string, wantErr bool) {
	t.Helper()
	d, err := Compile(reflect.TypeFor[T]())
	if err != nil {
		t.Fatalf("Compile %T: %v", *new(T), err)
	}
	var got, want T
	gerr := DecodeInto(d, []byte(in), &got)
	jerr := json.Unmarshal([]byte(in), &want)
	if (gerr != nil) != wantErr || (jerr != nil) != wantErr {
		t.Fatalf("%T %q: err %v, encoding/json err %v, want error %v", got, in, gerr, jerr, wantErr)
	}
	if !wantErr && !reflect.DeepEqual(got, want) {
		t.Fatalf("%T %q: got %#v, encoding/json %#v", got, in, got, want)
	}
}

func unsafeAdd[T any](v *T, off uintptr) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(v), off) }

type twoInts struct {
	Minuend    int `json:"minuend"`
	Subtrahend int `json:"subtrahend"`
}

type flags struct {
	A, B bool
	X    float64
	Y    float32
}

type oneString struct {
	Name string `json:"name"`
}
