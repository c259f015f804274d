package marshal

import (
	"encoding/json"
	"testing"
	"unsafe"
)

type fuzzItem struct {
	N   int        `json:"n"`
	U   uint16     `json:"u,omitempty"`
	F   float64    `json:"f"`
	G   float32    `json:"g,omitempty"`
	S   string     `json:"s"`
	B   []byte     `json:"b"`
	P   *fuzzItem  `json:"p,omitempty"`
	L   []fuzzItem `json:"l"`
	A   [2]float64 `json:"a"`
	Bs  []bool     `json:"bs,omitempty"`
	Ptr *string    `json:"ptr"`
}

// FuzzAppend decodes the input into a few fixed Go types with encoding/json
// and compares Append's output with encoding/json's (HTML escaping off).
func FuzzAppend(f *testing.F) {
	for _, s := range []string{`{"n":1,"s":"a<b>\u2028\ud800","f":1e-7,"l":[{"p":{"n":2}}],"b":"aGk="}`,
		`"\u0000x\u00ff"`, `[1,2,3]`, `1e300`, `{"a":[1.5,-0]}`} {
		f.Add([]byte(s))
	}
	ei, _ := CompileFor[fuzzItem]()
	es, _ := CompileFor[string]()
	el, _ := CompileFor[[]float64]()
	ea, _ := CompileFor[map[string]any]()
	f.Fuzz(func(t *testing.T, in []byte) {
		try := func(e *Encoder, v any, p unsafe.Pointer) {
			if json.Unmarshal(in, v) != nil {
				return
			}
			got, gerr := e.Append(nil, p)
			want, werr := oracle(v)
			if (gerr != nil) != (werr != nil) || string(got) != string(want) {
				t.Fatalf("%T %q:\n got %s (%v)\nwant %s (%v)", v, in, got, gerr, want, werr)
			}
		}
		var it fuzzItem
		var s string
		var l []float64
		try(ei, &it, unsafe.Pointer(&it))
		try(es, &s, unsafe.Pointer(&s))
		try(el, &l, unsafe.Pointer(&l))
		var a map[string]any
		try(ea, &a, unsafe.Pointer(&a))
	})
}
