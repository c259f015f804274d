package openrpc

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/jetrpc/jetrpc/decode"
)

// describeExamples turns each example's params (a JSON array or object, as
// in a request) into the list of named values an example pairing holds:
// array elements take the names of the params at their positions, object
// members their own names.
func describeExamples(exs []ExampleDoc, params []ContentDescriptor) ([]ExamplePairing, error) {
	var out []ExamplePairing
	for i, ex := range exs {
		name := ex.Name
		if name == "" {
			name = "example" + strconv.Itoa(i+1)
		}
		ep := ExamplePairing{Name: name, Summary: ex.Summary, Description: ex.Description, Params: []Example{}}
		if len(ex.Params) > 0 {
			var err error
			if ep.Params, err = exampleParams(ex.Params, params); err != nil {
				return nil, fmt.Errorf("example %q: %w", name, err)
			}
		}
		if ex.Result != nil {
			if !json.Valid(ex.Result) {
				return nil, fmt.Errorf("example %q: result is not valid JSON", name)
			}
			ep.Result = &Example{Name: "result", Value: json.RawMessage(ex.Result)}
		}
		out = append(out, ep)
	}
	return out, nil
}

func exampleParams(raw []byte, params []ContentDescriptor) ([]Example, error) {
	var it decode.Iter
	if !json.Valid(raw) || !it.Reset(raw) {
		return nil, fmt.Errorf("params are not a JSON array or object")
	}
	out := []Example{}
	for i := 0; it.Next(); i++ {
		name := "arg" + strconv.Itoa(i)
		switch {
		case it.IsObject():
			if err := json.Unmarshal(append(append([]byte{'"'}, it.Key()...), '"'), &name); err != nil {
				return nil, err
			}
		case i < len(params):
			name = params[i].Name
		case len(params) > 0 && params[len(params)-1].Variadic:
			name = params[len(params)-1].Name + "[" + strconv.Itoa(i-len(params)+1) + "]"
		}
		out = append(out, Example{Name: name, Value: json.RawMessage(it.Value())})
	}
	return out, nil
}
