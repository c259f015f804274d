package openrpc

import (
	"encoding/json"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/internal/unmarshal"
)

type (
	celsius float64
	text    struct{ s string }
	custom  struct{}
	raw     struct{}
	inner   struct {
		B int `json:"b"`
		C string
	}
	Inner struct {
		D bool `json:"d,omitempty"`
	}
	outer struct {
		A int `json:"a" description:"the a"`
		inner
		*Inner
		Named   inner    `json:"named"`
		Skipped int      `json:"-"`
		hidden  int      //nolint:unused // unexported: not a member
		Q       int64    `json:",string"`
		Z       []string `json:"z,omitzero"`
	}
	Node struct {
		Value    int              `json:"value"`
		Next     *Node            `json:"next,omitempty"`
		Children []Node           `json:"children,omitempty"`
		Other    *Leaf            `json:"other,omitempty"`
		Loop     *LoopA           `json:"loop,omitempty"`
		Table    map[string]*Node `json:"table,omitempty"`
	}
	Leaf  struct{ X int }
	LoopA struct{ B *LoopB }
	LoopB struct{ A *LoopA }
	dup1  struct{ X, Y int }
	dup2  struct{ X int }
	// conflict: two X at one depth annihilate, as in encoding/json
	conflict struct {
		dup1
		dup2
	}
)

func (text) MarshalText() ([]byte, error) { return nil, nil }
func (custom) OpenRPCSchema() json.RawMessage {
	return json.RawMessage(`{"type":"string","pattern":"^x"}`)
}
func (raw) MarshalJSON() ([]byte, error) { return []byte("1"), nil }
func (*raw) UnmarshalJSON([]byte) error  { return nil }

func TestSchemaKinds(t *testing.T) {
	f := func(typ reflect.Type, want string) {
		t.Helper()
		var s Schemas
		got, err := s.Of(typ)
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		if string(got) != want {
			t.Errorf("%v:\n got %s\nwant %s", typ, got, want)
		}
	}
	f(reflect.TypeFor[bool](), `{"type":"boolean"}`)
	f(reflect.TypeFor[int8](), `{"type":"integer","minimum":-128,"maximum":127}`)
	f(reflect.TypeFor[int](), `{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}`)
	f(reflect.TypeFor[uint8](), `{"type":"integer","minimum":0,"maximum":255}`)
	f(reflect.TypeFor[uint16](), `{"type":"integer","minimum":0,"maximum":65535}`)
	f(reflect.TypeFor[uint64](), `{"type":"integer","minimum":0,"maximum":18446744073709551615}`)
	f(reflect.TypeFor[float32](), `{"type":"number","minimum":-3.4028235e+38,"maximum":3.4028235e+38}`)
	f(reflect.TypeFor[float64](), `{"type":"number"}`)
	f(reflect.TypeFor[celsius](), `{"type":"number"}`)
	f(reflect.TypeFor[string](), `{"type":"string"}`)
	f(reflect.TypeFor[[]byte](), `{"type":"string","contentEncoding":"base64"}`)
	f(reflect.TypeFor[[2]byte](), `{"type":"array","items":{"type":"integer","minimum":0,"maximum":255},"minItems":2,"maxItems":2}`)
	f(reflect.TypeFor[[]string](), `{"type":"array","items":{"type":"string"}}`)
	f(reflect.TypeFor[[2]float64](), `{"type":"array","items":{"type":"number"},"minItems":2,"maxItems":2}`)
	f(reflect.TypeFor[map[string]bool](), `{"type":"object","additionalProperties":{"type":"boolean"}}`)
	f(reflect.TypeFor[map[int8]string](), `{"type":"object","propertyNames":{"pattern":"^-?[0-9]+$"},"additionalProperties":{"type":"string"}}`)
	f(reflect.TypeFor[map[text]int8](), `{"type":"object","additionalProperties":{"type":"integer","minimum":-128,"maximum":127}}`)
	f(reflect.TypeFor[*int8](), `{"type":"integer","minimum":-128,"maximum":127}`)
	f(reflect.TypeFor[**string](), `{"type":"string"}`)
	f(reflect.TypeFor[any](), `{}`)
	f(reflect.TypeFor[error](), `{}`)
	f(reflect.TypeFor[json.RawMessage](), `{}`)
	f(reflect.TypeFor[json.Number](), `{"type":"number"}`)
	f(reflect.TypeFor[time.Time](), `{"type":"string","format":"date-time"}`)
	f(reflect.TypeFor[*time.Time](), `{"type":"string","format":"date-time"}`)
	f(reflect.TypeFor[time.Duration](), `{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}`)
	f(reflect.TypeFor[net.IP](), `{"type":"string"}`) // TextMarshaler before []byte
	f(reflect.TypeFor[text](), `{"type":"string"}`)
	f(reflect.TypeFor[custom](), `{"type":"string","pattern":"^x"}`)
	f(reflect.TypeFor[*custom](), `{"type":"string","pattern":"^x"}`)
	f(reflect.TypeFor[raw](), `{}`)
	f(reflect.TypeFor[struct{}](), `{"type":"object","properties":{}}`)
	f(reflect.TypeFor[struct {
		A int8 `json:"a,omitempty"`
		B []any
	}](), `{"type":"object","properties":{"a":{"type":"integer","minimum":-128,"maximum":127},"B":{"type":"array","items":{}}},"required":["B"]}`)
}

// TestSchemaStructs covers tags, embedded structs and the components,
// including types that refer to themselves.
func TestSchemaStructs(t *testing.T) {
	f := func(typ reflect.Type, want string, defs ...string) {
		t.Helper()
		var s Schemas
		got, err := s.Of(typ)
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		if string(got) != want {
			t.Errorf("%v:\n got %s\nwant %s", typ, got, want)
		}
		if len(s.Components()) != len(defs)/2 {
			t.Errorf("%v: %d components, want %d: %s", typ, len(s.Components()), len(defs)/2, s.Components())
		}
		for i := 0; i+1 < len(defs); i += 2 {
			if got := string(s.Components()[defs[i]]); got != defs[i+1] {
				t.Errorf("%v: component %s:\n got %s\nwant %s", typ, defs[i], got, defs[i+1])
			}
		}
	}
	intSchema := `{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}`
	inner := `{"type":"object","properties":{"b":` + intSchema + `,"C":{"type":"string"}},"required":["b","C"]}`
	f(reflect.TypeFor[outer](), `{"$ref":"#/components/schemas/outer"}`,
		"outer", `{"type":"object","properties":{`+
			`"a":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807,"description":"the a"},`+
			`"b":`+intSchema+`,"C":{"type":"string"},"d":{"type":"boolean"},`+
			`"named":{"$ref":"#/components/schemas/inner"},"Q":{"type":"string"},"z":{"type":"array","items":{"type":"string"}}},`+
			`"required":["a","b","C","named","Q"]}`,
		"inner", inner)
	node := `{"type":"object","properties":{"value":` + intSchema + `,` +
		`"next":{"$ref":"#/components/schemas/Node"},"children":{"type":"array","items":{"$ref":"#/components/schemas/Node"}},` +
		`"other":{"$ref":"#/components/schemas/Leaf"},"loop":{"$ref":"#/components/schemas/LoopA"},` +
		`"table":{"type":"object","additionalProperties":{"$ref":"#/components/schemas/Node"}}},"required":["value"]}`
	f(reflect.TypeFor[[]Node](), `{"type":"array","items":{"$ref":"#/components/schemas/Node"}}`,
		"Node", node,
		"Leaf", `{"type":"object","properties":{"X":`+intSchema+`},"required":["X"]}`,
		"LoopA", `{"type":"object","properties":{"B":{"$ref":"#/components/schemas/LoopB"}},"required":["B"]}`,
		"LoopB", `{"type":"object","properties":{"A":{"$ref":"#/components/schemas/LoopA"}},"required":["A"]}`)
	f(reflect.TypeFor[conflict](), `{"$ref":"#/components/schemas/conflict"}`,
		"conflict", `{"type":"object","properties":{"Y":`+intSchema+`},"required":["Y"]}`)
}

func TestSchemaNames(t *testing.T) {
	var s Schemas
	type T struct{ A int }
	a := reflect.TypeFor[T]()
	b := reflect.TypeFor[struct{ T }]().Field(0).Type
	if a != b {
		t.Fatal("same type expected")
	}
	c := func() reflect.Type {
		type T struct{ B int }
		return reflect.TypeFor[T]()
	}()
	for _, typ := range []reflect.Type{a, c, reflect.TypeFor[Page[int]]()} {
		if _, err := s.Of(typ); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for n := range s.Components() {
		names = append(names, n)
	}
	want := map[string]bool{"T": true, "openrpc_T": true, "Page_int_": true}
	if len(names) != 3 || !want[names[0]] || !want[names[1]] || !want[names[2]] {
		t.Fatalf("component names %v, want %v", names, want)
	}
}

type Page[T any] struct{ Items []T }

func TestSchemaUnsupported(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[chan int](), reflect.TypeFor[func()](), reflect.TypeFor[complex128](),
		reflect.TypeFor[map[[2]int]int](), reflect.TypeFor[struct{ C chan int }](),
	} {
		var s Schemas
		if _, err := s.Of(typ); err == nil || !strings.Contains(err.Error(), "no JSON Schema") {
			t.Errorf("%v: err %v", typ, err)
		}
	}
}

// TestFieldsMatchBinder: the members described are the members dispatch's
// binder fills, by name and in position order.
func TestFieldsMatchBinder(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[outer](), reflect.TypeFor[Node](), reflect.TypeFor[conflict](),
		reflect.TypeFor[struct {
			Inner
			X int `json:"d"` // shadows Inner.D
		}](),
	} {
		d, err := unmarshal.Compile(typ)
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, f := range d.Fields() {
			want = append(want, f.Name)
		}
		for _, f := range fieldsOf(typ) {
			got = append(got, f.name)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: members %v, binder %v", typ, got, want)
		}
	}
}
