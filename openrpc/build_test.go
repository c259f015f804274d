package openrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/openrpc"
)

type point struct {
	X int8 `json:"x" description:"across"`
	Y int8 `json:"y,omitempty"`
}

func typed[P, R any]() dispatch.Handler {
	return dispatch.Typed(func(context.Context, P) (R, error) { var r R; return r, nil })
}

var rawHandler = dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) { return dst, nil })

// TestBuildMethods: one method object per line, as Build writes it.
func TestBuildMethods(t *testing.T) {
	i8 := `{"type":"integer","minimum":-128,"maximum":127}`
	f := func(h dispatch.Handler, d openrpc.MethodDoc, want string) {
		t.Helper()
		m := dispatch.Method{Name: "m", Handler: h}
		doc, err := openrpc.Describe([]dispatch.Method{m}, &openrpc.Options{Methods: map[string]openrpc.MethodDoc{"m": d}})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(doc.Methods[0])
		if string(got) != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
	}
	// typed: struct P by name or position, members in order, omitempty not required
	f(typed[point, bool](), openrpc.MethodDoc{},
		`{"name":"m","paramStructure":"either","params":[`+
			`{"name":"x","description":"across","schema":{"type":"integer","minimum":-128,"maximum":127,"description":"across"},"required":true},`+
			`{"name":"y","schema":`+i8+`}],"result":{"name":"result","schema":{"type":"boolean"}}}`)
	f(typed[*point, bool](), openrpc.MethodDoc{},
		`{"name":"m","paramStructure":"either","params":[`+
			`{"name":"x","description":"across","schema":{"type":"integer","minimum":-128,"maximum":127,"description":"across"},"required":true},`+
			`{"name":"y","schema":`+i8+`}],"result":{"name":"result","schema":{"type":"boolean"}}}`)
	f(typed[struct{}, string](), openrpc.MethodDoc{},
		`{"name":"m","paramStructure":"either","params":[],"result":{"name":"result","schema":{"type":"string"}}}`)
	// a slice: any number by position; an array: N by position; a scalar: one
	f(typed[[]int8, any](), openrpc.MethodDoc{Params: []openrpc.ParamDoc{{Name: "numbers"}}},
		`{"name":"m","paramStructure":"by-position","params":[{"name":"numbers","schema":`+i8+`,"x-variadic":true}],"result":{"name":"result","schema":{}}}`)
	f(typed[[2]int8, int8](), openrpc.MethodDoc{Params: []openrpc.ParamDoc{{Name: "a"}, {Name: "b", Description: "the b"}}},
		`{"name":"m","paramStructure":"by-position","params":[{"name":"a","schema":`+i8+`,"required":true},`+
			`{"name":"b","description":"the b","schema":`+i8+`,"required":true}],"result":{"name":"result","schema":`+i8+`}}`)
	f(typed[int8, int8](), openrpc.MethodDoc{},
		`{"name":"m","paramStructure":"by-position","params":[{"name":"arg0","schema":`+i8+`,"required":true}],"result":{"name":"result","schema":`+i8+`}}`)
	// a map: by name, the names given by hand; any and Unmarshalers: either
	f(typed[map[string]int8, any](), openrpc.MethodDoc{Params: []openrpc.ParamDoc{{Name: "k", Schema: []byte(i8)}}},
		`{"name":"m","paramStructure":"by-name","params":[{"name":"k","schema":`+i8+`}],"result":{"name":"result","schema":{}}}`)
	f(typed[json.RawMessage, json.RawMessage](), openrpc.MethodDoc{},
		`{"name":"m","paramStructure":"either","params":[],"result":{"name":"result","schema":{}}}`)
	f(typed[any, any](), openrpc.MethodDoc{},
		`{"name":"m","paramStructure":"either","params":[],"result":{"name":"result","schema":{}}}`)
	// hand-written descriptions over derived ones
	f(typed[point, bool](), openrpc.MethodDoc{Summary: "s", Description: "d", Deprecated: true,
		Params: []openrpc.ParamDoc{{Name: "y", Description: "down", Required: true}},
		Result: &openrpc.ParamDoc{Name: "inside", Summary: "whether"}},
		`{"name":"m","summary":"s","description":"d","paramStructure":"either","params":[`+
			`{"name":"x","description":"across","schema":{"type":"integer","minimum":-128,"maximum":127,"description":"across"},"required":true},`+
			`{"name":"y","description":"down","schema":`+i8+`,"required":true}],`+
			`"result":{"name":"inside","summary":"whether","schema":{"type":"boolean"}},"deprecated":true}`)
	// a raw handler: what it says, or either and any
	f(rawHandler, openrpc.MethodDoc{},
		`{"name":"m","paramStructure":"either","params":[],"result":{"name":"result","schema":{}}}`)
	f(rawHandler, openrpc.MethodDoc{ParamStructure: openrpc.ByPosition,
		Params:   []openrpc.ParamDoc{{Name: "ms", Schema: []byte(`{"type":"integer","minimum":0}`), Required: true}},
		Result:   &openrpc.ParamDoc{Name: "ms", Schema: []byte(`{"type":"integer"}`)},
		Errors:   []*encode.Error{dispatch.NewError(-32602, "Invalid params", []byte(`"want [ms]"`)), dispatch.NewError(7, "seven", nil)},
		Examples: []openrpc.ExampleDoc{{Params: []byte(`[5]`), Result: []byte(`5`)}, {Name: "named", Params: []byte(`{"ms":0}`), Result: []byte(`0`)}}},
		`{"name":"m","paramStructure":"by-position","params":[{"name":"ms","schema":{"type":"integer","minimum":0},"required":true}],`+
			`"result":{"name":"ms","schema":{"type":"integer"}},`+
			`"errors":[{"code":-32602,"message":"Invalid params","data":"want [ms]"},{"code":7,"message":"seven"}],`+
			`"examples":[{"name":"example1","params":[{"name":"ms","value":5}],"result":{"name":"result","value":5}},`+
			`{"name":"named","params":[{"name":"ms","value":0}],"result":{"name":"result","value":0}}]}`)
}

func TestBuildErrors(t *testing.T) {
	f := func(h dispatch.Handler, d openrpc.MethodDoc, want string) {
		t.Helper()
		m := dispatch.Method{Name: "m", Handler: h}
		_, err := openrpc.Build([]dispatch.Method{m}, &openrpc.Options{Methods: map[string]openrpc.MethodDoc{"m": d}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err %v, want %q", err, want)
		}
	}
	f(typed[point, chan int](), openrpc.MethodDoc{}, "no JSON Schema for chan int")
	f(typed[point, int](), openrpc.MethodDoc{Params: []openrpc.ParamDoc{{Name: "z"}}}, `param "z": the params type has no such member`)
	f(rawHandler, openrpc.MethodDoc{Params: []openrpc.ParamDoc{{Name: "a", Schema: []byte(`{`)}}}, "not valid JSON")
	f(rawHandler, openrpc.MethodDoc{Errors: []*encode.Error{{Code: 1, Message: "x", Data: []byte("{")}}}, "data is not valid JSON")
	f(rawHandler, openrpc.MethodDoc{Examples: []openrpc.ExampleDoc{{Params: []byte(`1`)}}}, "not a JSON array or object")
	f(rawHandler, openrpc.MethodDoc{Examples: []openrpc.ExampleDoc{{Result: []byte(`{`)}}}, "result is not valid JSON")
}

// TestBuildComponents: a struct shared by two methods, and one that refers
// to itself, land once in components/schemas.
func TestBuildComponents(t *testing.T) {
	type Tree struct {
		Label string  `json:"label"`
		Kids  []*Tree `json:"kids,omitempty"`
	}
	doc, err := openrpc.Build([]dispatch.Method{
		{Name: "a", Handler: typed[struct {
			T Tree `json:"t"`
		}, Tree]()},
		{Name: "b", Handler: typed[[]Tree, point]()},
	}, &openrpc.Options{Title: "trees", Version: "1.2.3", Description: "about trees"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`{"openrpc":"1.3.2","info":{"title":"trees","description":"about trees","version":"1.2.3"},`,
		`"components":{"schemas":{"Tree":{"type":"object","properties":{"label":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#/components/schemas/Tree"}}},"required":["label"]},"point":{`,
		`"params":[{"name":"t","schema":{"$ref":"#/components/schemas/Tree"},"required":true}],"result":{"name":"result","schema":{"$ref":"#/components/schemas/Tree"}}`,
	} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("document lacks %s:\n%s", want, doc)
		}
	}
}

func TestEnable(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	s, err := openrpc.Enable(e, &openrpc.Options{Title: "t", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.RegisterMethod(dispatch.Method{Name: "p", Handler: typed[point, int]()}); err != nil {
		t.Fatal(err)
	}
	doc, err := s.Document()
	if err != nil {
		t.Fatal(err)
	}
	out := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"rpc.discover","id":1}`))
	if want := `{"jsonrpc":"2.0","id":1,"result":` + string(doc) + `}`; string(out) != want {
		t.Fatalf("rpc.discover:\n got %s\nwant %s", out, want)
	}
	if _, err := openrpc.Enable(e, nil); err == nil {
		t.Fatal("Enable after Freeze succeeded")
	}

	bad := dispatch.New(nil)
	defer bad.Close()
	s, _ = openrpc.Enable(bad, nil)
	_ = bad.Register("c", typed[point, chan int]())
	if _, err := s.Document(); err == nil {
		t.Fatal("no error for an undescribable method")
	}
	out = bad.Process(nil, []byte(`{"jsonrpc":"2.0","method":"rpc.discover","id":1}`))
	if !strings.Contains(string(out), `"code":-32603`) || !strings.Contains(string(out), "no JSON Schema") {
		t.Fatalf("rpc.discover of a bad document: %s", out)
	}
}

// TestDescribe: a description given with Service.Describe replaces the
// one of Options.Methods (whose map Enable does not share), and lands in
// the document; after the engine froze Describe fails.
func TestDescribe(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	given := map[string]openrpc.MethodDoc{"a": {Summary: "from the options"}, "b": {Summary: "b's"}}
	s, err := openrpc.Enable(e, &openrpc.Options{Methods: given})
	if err != nil {
		t.Fatal(err)
	}
	_ = e.Register("a", rawHandler)
	_ = e.Register("b", rawHandler)
	if err := s.Describe("a", openrpc.MethodDoc{Summary: "described", Deprecated: true}); err != nil {
		t.Fatal(err)
	}
	if given["a"].Summary != "from the options" {
		t.Fatal("Describe changed the map of Options.Methods")
	}
	doc, err := s.Document()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{"name":"a","summary":"described",`, `"deprecated":true}`, `{"name":"b","summary":"b's",`} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("document lacks %s:\n%s", want, doc)
		}
	}
	if err := s.Describe("b", openrpc.MethodDoc{}); !errors.Is(err, dispatch.ErrFrozen) {
		t.Fatalf("Describe after Freeze: %v", err)
	}
}
