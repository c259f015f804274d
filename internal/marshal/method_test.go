package marshal

import (
	"encoding"
	"encoding/json"
	"errors"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// valM has a value-receiver MarshalJSON that returns its text as JSON.
type valM string

func (m valM) MarshalJSON() ([]byte, error) { return []byte(m), nil }

// ptrM has a pointer-receiver MarshalJSON: used only when addressable.
type ptrM struct{ N int }

func (m *ptrM) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte(`"nil ptrM"`), nil
	}
	return []byte(`{ "ptrM" : ` + strings.Repeat("[", m.N) + "0" + strings.Repeat("]", m.N) + " }"), nil
}

type errM struct{}

func (errM) MarshalJSON() ([]byte, error) { return nil, errors.New("errM") }

type mapM map[string]int

func (m mapM) MarshalJSON() ([]byte, error) { return []byte(`"mapM"`), nil }

// both has a pointer-receiver MarshalJSON and a value-receiver MarshalText:
// JSON when addressable, text when not.
type both struct{ S string }

func (b *both) MarshalJSON() ([]byte, error) { return []byte(`"json"`), nil }
func (b both) MarshalText() ([]byte, error)  { return []byte("text:" + b.S), nil }

// valT and ptrT are TextMarshalers (value and pointer receiver).
type valT struct{ A, B int }

func (v valT) MarshalText() ([]byte, error) {
	return []byte("<" + string(rune('0'+v.A)) + "\"\\" + string(rune('0'+v.B)) + ">\u2028\xff"), nil
}

type ptrT struct{ S string }

func (p *ptrT) MarshalText() ([]byte, error) { return []byte("p:" + p.S), nil }

type errT int

func (errT) MarshalText() ([]byte, error) { return nil, errors.New("errT") }

// intKey is an int key with MarshalText; strKey a string key with one
// (encoding/json uses the string, not the method).
type intKey int

func (k intKey) MarshalText() ([]byte, error) { return []byte("k" + string(rune('a'+k))), nil }

type strKey string

func (k strKey) MarshalText() ([]byte, error) { return []byte("never"), nil }

type ptrKey struct{ N int }

func (k *ptrKey) MarshalText() ([]byte, error) { return []byte{byte('0' + k.N)}, nil }

// embedsM promotes MarshalJSON from time.Time: the whole struct is a time.
type embedsM struct {
	time.Time
	X int
}

type holders struct {
	M   json.Marshaler
	T   encoding.TextMarshaler
	PM  *ptrM
	V   valM
	Arr [2]ptrM
}

func TestMarshaler(t *testing.T) {
	f := func(v any) { t.Helper(); check(t, v) }
	f(ptr(valM(` { "a" : [ 1 , 2 ] , "s" : " < & > \u2028 \xff " } `)))
	f(ptr(valM(`"\u00e9\n\"\/"`)))
	f(ptr(valM("\t-0.5E+10\r\n")))
	f(ptr(valM(`[[[[]]],{},{"":{"":null}},true,false]`)))
	for _, bad := range []string{"", " ", "{", "}", "[1,]", `{"a":1,}`, "01", "1.", "1e", "-", ".5", "+1",
		`"a`, "\"\x01\"", `"\x"`, `"\u12g4"`, "nul", "truex", "1 2", "[1 2]", `{"a" 1}`, `{1:2}`,
		"[" + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "]"} {
		f(ptr(valM(bad)))
	}
	f(ptr(valM(strings.Repeat("[", 1000) + strings.Repeat("]", 1000))))
	// Deeper than decode's limit (1000 levels): encoding/json takes it
	// (its limit is 10000), the compactor refuses it, as decode would.
	deep := valM(strings.Repeat("[", 1001) + strings.Repeat("]", 1001))
	e, err := CompileFor[valM]()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := e.Append(nil, unsafe.Pointer(&deep)); err == nil {
		t.Errorf("1001 levels of nesting: compacted to %d bytes, want an error", len(out))
	}
	f(ptr(ptrM{3}))
	f(ptr([]ptrM{{1}, {2}}))
	f(ptr(map[string]ptrM{"a": {1}}))
	f(ptr(map[string]*ptrM{"a": {1}, "n": nil}))
	f(ptr([]any{ptrM{1}, &ptrM{2}, (*ptrM)(nil), valM("1")}))
	f(ptr(errM{}))
	f(ptr([]errM{{}}))
	f(ptr(mapM(nil)))
	f(ptr(both{"x"}))
	f(ptr(map[string]both{"k": {"y"}}))
	f(ptr(any(both{"z"})))
	f(ptr(embedsM{time.Date(2024, 2, 3, 4, 5, 6, 7, time.UTC), 1}))
	f(ptr(holders{}))
	f(ptr(holders{M: (*ptrM)(nil), T: both{"i"}, PM: &ptrM{1}, V: "2", Arr: [2]ptrM{{0}, {1}}}))
	f(ptr(holders{M: valM("{"), V: "1"}))
	f(ptr(struct{ B *big.Int }{big.NewInt(-12345)}))
	f(ptr(struct{ B big.Int }{}))
}

func TestTextMarshaler(t *testing.T) {
	f := func(v any) { t.Helper(); check(t, v) }
	f(ptr(valT{1, 2}))
	f(ptr(ptrT{"a"}))
	f(ptr(map[string]ptrT{"a": {"b"}}))
	f(ptr([]*ptrT{nil, {"c"}}))
	f(ptr(errT(1)))
	f(ptr(net.ParseIP("10.0.0.1")))
	f(ptr(net.IP(nil)))
	f(ptr(map[intKey]int{2: 1, 0: 2, 25: 3}))
	f(ptr(map[strKey]int{"b": 1, "a": 2}))
	f(ptr(map[valT]string{{1, 2}: "x", {0, 0}: "y"}))
	f(ptr(map[*ptrKey]int{{1}: 1, nil: 0}))
	f(ptr(map[errT]int{1: 1}))
	f(ptr(map[encoding.TextMarshaler]int{valT{3, 4}: 1, intKey(1): 2}))
}

func TestRawMessage(t *testing.T) {
	f := func(v any) { t.Helper(); check(t, v) }
	f(ptr(json.RawMessage(nil)))
	f(ptr(json.RawMessage{}))
	f(ptr(json.RawMessage(` { "a" : [ 1 , "x y" ] } `)))
	f(ptr(json.RawMessage(`{"a":1}`)))
	f(ptr(json.RawMessage(`{"a":1`)))
	f(ptr((*json.RawMessage)(nil)))
	f(ptr(&json.RawMessage{'1'}))
	f(ptr([]json.RawMessage{nil, json.RawMessage("2"), json.RawMessage(" \"<\xff>\" ")}))
	f(ptr(map[string]json.RawMessage{"a": json.RawMessage(" null ")}))
	f(ptr(any(json.RawMessage(`[ ]`))))
	f(ptr(struct {
		R json.RawMessage `json:"r,omitempty"`
		S json.RawMessage `json:"s,omitzero"`
	}{S: json.RawMessage("3")}))
}

func TestNumber(t *testing.T) {
	f := func(v any) { t.Helper(); check(t, v) }
	for _, n := range []string{"", "0", "-0", "12", "-0.5e+3", "1E-7", "abc", "01", "1.", "1e", "-", " 1", "1 ", "0x1", "+1"} {
		f(ptr(json.Number(n)))
		f(ptr(struct {
			N json.Number `json:",string"`
		}{json.Number(n)}))
	}
	f(ptr(map[json.Number]json.Number{"1": "2"}))
	f(ptr([]any{json.Number("3.5")}))
}
