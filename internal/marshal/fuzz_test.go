package marshal

import (
	"encoding/json"
	"strconv"
	"testing"
	"unsafe"

	"github.com/jetrpc/jetrpc/internal/scan"
)

type fuzzItem struct {
	N   int                  `json:"n"`
	U   uint16               `json:"u,omitempty"`
	F   float64              `json:"f"`
	G   float32              `json:"g,omitempty"`
	S   string               `json:"s"`
	B   []byte               `json:"b"`
	P   *fuzzItem            `json:"p,omitempty"`
	L   []fuzzItem           `json:"l"`
	A   [2]float64           `json:"a"`
	Bs  []bool               `json:"bs,omitempty"`
	Ptr *string              `json:"ptr"`
	X   *fuzzExtra           `json:"x,omitempty"`
	XM  map[string]fuzzExtra `json:"xm,omitempty"`
}

// fuzzExtra has a member of each kind of the later features: methods,
// RawMessage, embedded structs, ",string", omitzero. In XM (map values)
// it is not addressable, so M's pointer-receiver MarshalJSON does not apply.
type fuzzExtra struct {
	FuzzEmb
	*FuzzEmbP
	R   json.RawMessage    `json:"r"`
	RP  *json.RawMessage   `json:"rp,omitempty"`
	J   fuzzJSONText       `json:"j,omitempty"`
	M   fuzzPtrM           `json:"m"`
	MS  []fuzzPtrM         `json:"ms,omitempty"`
	T   fuzzText           `json:"t"`
	K   map[fuzzKey]string `json:"k,omitempty"`
	QI  int                `json:"qi,string"`
	QS  string             `json:"qs,string,omitempty"`
	QF  *float64           `json:"qf,string,omitempty"`
	QB  bool               `json:"qb,string"`
	Num json.Number        `json:"num,omitempty"`
	ZI  int                `json:"zi,omitzero"`
	ZF  float64            `json:"zf,omitzero"`
	ZS  []int              `json:"zs,omitzero"`
	ZZ  fuzzZ              `json:"zz,omitzero"`
	ZP  *fuzzZ             `json:"zp,omitzero"`
	ZE  FuzzEmb            `json:"ze,omitzero"`
}

// FuzzEmb and FuzzEmbP are embedded at the same depth: their "e" members
// cancel out; the others are promoted (FuzzEmbP's only when it is set).
type FuzzEmb struct {
	E int    `json:"e"`
	D string `json:"d,omitempty"`
	N int
}

type FuzzEmbP struct {
	E int     `json:"e"`
	Q string  `json:"q"`
	W []int   `json:"w,omitempty"`
	V *string `json:"v,string"`
}

// fuzzJSONText's MarshalJSON returns the decoded string itself, valid JSON
// or not: the compactor against encoding/json's.
type fuzzJSONText string

func (j fuzzJSONText) MarshalJSON() ([]byte, error) { return []byte(j), nil }

type fuzzPtrM struct{ V int }

func (m *fuzzPtrM) MarshalJSON() ([]byte, error) {
	return []byte(" [ " + strconv.Itoa(m.V) + " , {\"m\" : true} ] "), nil
}

type fuzzText struct{ S string }

func (t fuzzText) MarshalText() ([]byte, error) { return []byte("t:" + t.S), nil }

type fuzzKey uint16

func (k fuzzKey) MarshalText() ([]byte, error) { return []byte(`k"<` + strconv.Itoa(int(k))), nil }

type fuzzZ struct {
	V int `json:"v"`
}

func (z fuzzZ) IsZero() bool { return z.V%2 == 0 }

// FuzzAppend decodes the input into a few fixed Go types with encoding/json
// and compares Append's output with encoding/json's (HTML escaping off).
func FuzzAppend(f *testing.F) {
	for _, s := range []string{`{"n":1,"s":"a<b>\u2028\ud800","f":1e-7,"l":[{"p":{"n":2}}],"b":"aGk="}`,
		`"\u0000x\u00ff"`, `[1,2,3]`, `1e300`, `{"a":[1.5,-0]}`,
		`{"x":{"e":1,"q":"q","r":{ "a" : [1, "\u00e9"] },"j":"[1, {\"a\" :2}]","m":{"V":3},"t":{"S":"<"},` +
			`"k":{"7":"x","65535":"y"},"qi":"-5","qs":"\"a\\\\b\"","qf":"1.5","qb":"true","num":-1.5e3,` +
			`"zi":0,"zf":-0,"zs":[],"zz":{"v":2},"zp":{"v":3},"ze":{"e":0},"w":[1],"v":"\"s\""}}`,
		`{"xm":{"a":{"m":{"V":1},"ms":[{"V":2}],"r":null,"rp":" 1 ","j":"{ }"}},"x":{"r":"\u00ff"}}`,
		`{"x":{"j":"[\u0001]"}}`, `[{"j":"[[1 , 2]"}, {"r":[ ]}]`,
	} {
		f.Add([]byte(s))
	}
	ei, _ := CompileFor[fuzzItem]()
	es, _ := CompileFor[string]()
	el, _ := CompileFor[[]float64]()
	ea, _ := CompileFor[map[string]any]()
	ex, _ := CompileFor[[]fuzzExtra]()
	er, _ := CompileFor[json.RawMessage]()
	f.Fuzz(func(t *testing.T, in []byte) {
		compare := func(e *Encoder, v any, p unsafe.Pointer) {
			got, gerr := e.Append(nil, p)
			want, werr := oracle(v)
			if (gerr != nil) != (werr != nil) || string(got) != string(want) {
				t.Fatalf("%T %q:\n got %s (%v)\nwant %s (%v)", v, in, got, gerr, want, werr)
			}
		}
		try := func(e *Encoder, v any, p unsafe.Pointer) {
			if json.Unmarshal(in, v) == nil {
				compare(e, v, p)
			}
		}
		if nesting(in) > scan.DefaultMaxDepth {
			// Past decode's limit, which the compactor keeps and
			// encoding/json (10000) does not.
			t.Skip()
		}
		r := json.RawMessage(in) // the input as it is: the compactor on any bytes
		compare(er, &r, unsafe.Pointer(&r))
		var it fuzzItem
		var s string
		var l []float64
		var a map[string]any
		var x []fuzzExtra
		try(ei, &it, unsafe.Pointer(&it))
		try(es, &s, unsafe.Pointer(&s))
		try(el, &l, unsafe.Pointer(&l))
		try(ea, &a, unsafe.Pointer(&a))
		try(ex, &x, unsafe.Pointer(&x))
	})
}

// nesting returns the deepest nesting of arrays and objects in b, outside
// strings (b need not be valid JSON).
func nesting(b []byte) int {
	depth, most, in := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '[' || c == '{':
			depth++
			most = max(most, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return most
}
