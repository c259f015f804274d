package unmarshal

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type EmbA struct {
	X int
	Y string `json:"y"`
	Z int
	A int
}

type EmbB struct {
	X int    // conflicts with EmbA.X: both dropped
	Y string // kept beside EmbA's "y": dominance compares names exactly
	W int    `json:"Z"` // tagged Z beats EmbA's untagged Z
	B int
}

type embC struct{ C int } // unexported: a nil *embC cannot be set

type EmbD struct {
	*EmbA // EmbA again, one level deeper: hidden by the shallower one
	D     int
}

type EmbE struct{ EmbF }

type EmbG struct{ EmbF }

type EmbF struct{ F, G int } // reached twice at depth 2: F and G annihilate

type MyInt int

type embedded struct {
	*EmbA
	*EmbB
	*embC
	EmbD
	EmbE
	EmbG
	*MyInt
	Named *EmbA `json:"named"`
	A     string
}

type Node struct {
	*Node // explored once: its own type
	V     int
}

type tagged struct {
	EmbA `json:"a"` // a tag name makes it a plain member
	X    int
}

func TestEmbedded(t *testing.T) {
	ok := func(in string) { t.Helper(); check[embedded](t, in, false) }
	bad := func(in string) { t.Helper(); check[embedded](t, in, true) }
	ok(`{}`)
	ok(`{"A":"top"}`)                         // no embedded pointer is allocated
	ok(`{"y":"a","Y":"b","Z":3,"z":4}`)       // allocates EmbA only (EmbB's W is Z)
	ok(`{"B":1}`)                             // allocates EmbB only
	ok(`{"X":1,"F":2,"G":3,"D":4,"MyInt":5}`) // X, F and G are dropped
	ok(`{"named":{"X":1,"A":2},"a":"x"}`)
	ok(`{"A":"s","D":1,"Z":2}`)
	ok(`{"myint":null}`)
	bad(`{"C":1}`) // nil pointer to the unexported embC
	bad(`{"c":null}`)
	bad(`{"A":1}`)
	check[Node](t, `{"V":1,"Node":{"V":2}}`, false)
	check[tagged](t, `{"a":{"X":1},"X":2}`, false)
	check[tagged](t, `{"A":3}`, true) // "A" folds to the member "a"
}

func TestEmbeddedUnexportedSet(t *testing.T) {
	d, err := Compile(reflect.TypeFor[embedded]())
	if err != nil {
		t.Fatal(err)
	}
	got := embedded{embC: &embC{}}
	want := embedded{embC: &embC{}}
	in := `{"C":7}`
	if err := DecodeInto(d, []byte(in), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	if got.C != 7 || want.C != 7 {
		t.Fatalf("got %v, want %v", got.C, want.C)
	}
	var e *Error
	err = DecodeInto(d, []byte(`{"C":7}`), new(embedded))
	if !errors.As(err, &e) || e.Path != "C" || !strings.Contains(e.Msg, "unexported struct unmarshal.embC") {
		t.Fatalf("err %v", err)
	}
}

// TestFieldsEmbedded binds members one by one the way dispatch binds
// positional params: Decode at unsafe.Add(p, f.Offset).
func TestFieldsEmbedded(t *testing.T) {
	d, err := Compile(reflect.TypeFor[embedded]())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range d.Fields() {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "y,Y,Z,B,C,D,MyInt,named,A" {
		t.Fatalf("fields %s", got)
	}
	var v embedded
	vals := map[string]string{"y": `"yy"`, "Y": `"YY"`, "Z": `5`, "B": `6`, "D": `7`, "MyInt": `8`, "A": `"top"`}
	for _, f := range d.Fields() {
		if in, ok := vals[f.Name]; ok {
			if err := f.Decoder.Decode([]byte(in), unsafeAdd(&v, f.Offset)); err != nil {
				t.Fatal(f.Name, err)
			}
		}
	}
	if v.EmbA == nil || v.EmbA.Y != "yy" || v.EmbB.Y != "YY" || v.EmbB.W != 5 || v.EmbB.B != 6 || v.D != 7 || *v.MyInt != 8 || v.A != "top" {
		t.Fatalf("%+v", v)
	}
}

// withTime has UnmarshalJSON and UnmarshalText promoted from time.Time.
type withTime struct{ time.Time }

type timeHolder struct {
	Named withTime                       // named: its pointer's methods are used
	Anon  struct{ time.Time }            // unnamed: decoded as a struct, methods ignored
	PAnon *struct{ time.Time }           // through a pointer: methods used
	L     []struct{ time.Time }          // elements are values: ignored
	M     map[string]struct{ time.Time } // map values too
	NP    namedPtr                       // a named pointer type has no methods
	PNP   *namedPtr                      // neither through a pointer
	R     *json.RawMessage               // an unnamed pointer: RawMessage's method
	NR    namedRawPtr                    // a named pointer: RawMessage by kind (base64)
	Top   struct{ json.RawMessage }      `json:"-"`
}

type namedPtr *withTime

type namedRawPtr *json.RawMessage

func TestMethodsAddressable(t *testing.T) {
	ok := func(in string) { t.Helper(); check[timeHolder](t, in, false) }
	bad := func(in string) { t.Helper(); check[timeHolder](t, in, true) }
	ts := `"2024-01-02T03:04:05Z"`
	ok(`{"Named":` + ts + `,"PAnon":` + ts + `,"R":[1]}`)
	ok(`{"Anon":{"Time":1},"L":[{}],"M":{"a":{}},"NP":{},"PNP":{},"NR":"aGk="}`)
	bad(`{"Anon":` + ts + `}`)
	bad(`{"L":[` + ts + `]}`)
	bad(`{"M":{"a":` + ts + `}}`)
	bad(`{"NP":` + ts + `}`)
	bad(`{"NR":{}}`)
	// At the top level the value is reached through a pointer.
	check[struct{ time.Time }](t, ts, false)
	check[[]struct{ time.Time }](t, `[{}]`, false)
	check[namedPtr](t, `{}`, false)
}
