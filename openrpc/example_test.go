package openrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/openrpc"
)

type Vec struct {
	X float64 `json:"x" description:"east"`
	Y float64 `json:"y,omitempty"`
}

type ScaleArgs struct {
	V Vec     `json:"v"`
	K float64 `json:"k" description:"the factor"`
}

func ExampleEnable() {
	e := dispatch.New(nil)
	defer e.Close()
	svc, _ := openrpc.Enable(e, &openrpc.Options{Title: "geometry", Version: "1.0.0"})
	_ = e.Register("scale", dispatch.Typed(func(_ context.Context, a ScaleArgs) (Vec, error) {
		return Vec{a.V.X * a.K, a.V.Y * a.K}, nil
	}))
	_ = svc.Describe("scale", openrpc.MethodDoc{Summary: "Scales a vector."}) // beside the types
	doc, _ := svc.Document()                                                  // also the result of rpc.discover
	var d openrpc.Document
	_ = json.Unmarshal(doc, &d)
	m := d.Methods[0]
	fmt.Println(m.Name+":", m.Summary, m.ParamStructure, m.Params[0].Name, m.Params[1].Name, m.Params[1].Description)
	fmt.Printf("%s\n", m.Result.Schema)
	fmt.Printf("%s\n", d.Components.Schemas["Vec"])
	// Output:
	// scale: Scales a vector. either v k the factor
	// {"$ref":"#/components/schemas/Vec"}
	// {"type":"object","properties":{"x":{"type":"number","description":"east"},"y":{"type":"number"}},"required":["x"]}
}

func ExampleSchemas() {
	type Item struct {
		Name string   `json:"name"`
		Tags []string `json:"tags,omitempty"`
		Sub  *Item    `json:"sub,omitempty"`
	}
	var s openrpc.Schemas
	ref, _ := s.Of(reflect.TypeFor[[]Item]())
	fmt.Printf("%s\n%s\n", ref, s.Components()["Item"])
	// Output:
	// {"type":"array","items":{"$ref":"#/components/schemas/Item"}}
	// {"type":"object","properties":{"name":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},"sub":{"$ref":"#/components/schemas/Item"}},"required":["name"]}
}

func ExampleBuild() {
	raw := dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) { return append(dst, "0"...), nil })
	docs := map[string]openrpc.MethodDoc{"sleep": { // a raw handler says what its types cannot
		Summary: "Waits ms milliseconds.",
		Params:  []openrpc.ParamDoc{{Name: "ms", Schema: []byte(`{"type":"integer","minimum":0}`), Required: true}},
		Result:  &openrpc.ParamDoc{Name: "ms", Schema: []byte(`{"type":"integer"}`)},
	}}
	doc, _ := openrpc.Build([]dispatch.Method{{Name: "sleep", Handler: raw}},
		&openrpc.Options{Title: "demo", Version: "1", Methods: docs})
	fmt.Printf("%s\n", doc)
	// Output:
	// {"openrpc":"1.3.2","info":{"title":"demo","version":"1"},"methods":[{"name":"sleep","summary":"Waits ms milliseconds.","paramStructure":"either","params":[{"name":"ms","schema":{"type":"integer","minimum":0},"required":true}],"result":{"name":"ms","schema":{"type":"integer"}}}]}
}
