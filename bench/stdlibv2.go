//go:build goexperiment.jsonv2

package bench

import (
	"bytes"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
)

// JSONBuild names the encoding/json that Stdlib runs on in this build.
const JSONBuild = "encoding/json on v2 (GOEXPERIMENT=jsonv2)"

// NewStdlibV2 returns the encoding/json/v2 baseline: Stdlib's service
// written against encoding/json/v2 and jsontext directly (jsontext.Value
// for the raw id, params and results, v2's Marshal and Unmarshal), the
// way a service written for Go 1.27's json does it. It exists only in a
// build with GOEXPERIMENT=jsonv2; elsewhere NewStdlibV2 returns nil.
func NewStdlibV2() Baseline {
	s := &stdlibV2{methods: map[string]func(jsontext.Value) (any, error){}}
	s.methods["subtract"] = v2Subtract
	s.methods["sum"] = v2Sum
	for _, name := range []string{"update", "notify_hello", "notify_sum"} {
		s.methods[name] = func(jsontext.Value) (any, error) { return nil, nil }
	}
	s.methods["get_data"] = func(jsontext.Value) (any, error) { return []any{"hello", 5}, nil }
	s.methods["echo"] = func(p jsontext.Value) (any, error) { return p, nil }
	return s
}

type stdlibV2 struct {
	methods map[string]func(jsontext.Value) (any, error)
}

type v2Request struct {
	JSONRPC string         `json:"jsonrpc"`
	Method  string         `json:"method"`
	Params  jsontext.Value `json:"params,omitzero"`
	ID      jsontext.Value `json:"id,omitzero"`
}

type v2Response struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      jsontext.Value `json:"id"`
	Result  any            `json:"result,omitzero"`
	Error   *stdError      `json:"error,omitzero"`
}

var v2Null = jsontext.Value("null")

// Process answers one message (single or batch); nil when no answer is due.
func (s *stdlibV2) Process(msg []byte) []byte {
	trimmed := bytes.TrimSpace(msg)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []jsontext.Value
		if err := jsonv2.Unmarshal(trimmed, &batch); err != nil {
			return s.marshal(v2Response{ID: v2Null, Error: &stdError{-32700, "Parse error"}})
		}
		var out []jsontext.Value
		for _, m := range batch {
			if r := s.one(m); r != nil {
				out = append(out, r)
			}
		}
		if len(out) == 0 {
			return nil
		}
		b, _ := jsonv2.Marshal(out)
		return b
	}
	return s.one(trimmed)
}

func (s *stdlibV2) one(msg []byte) []byte {
	var req v2Request
	if err := jsonv2.Unmarshal(msg, &req); err != nil {
		return s.marshal(v2Response{ID: v2Null, Error: &stdError{-32700, "Parse error"}})
	}
	id := req.ID
	if id == nil {
		id = v2Null
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		return s.marshal(v2Response{ID: id, Error: &stdError{-32600, "Invalid Request"}})
	}
	h, ok := s.methods[req.Method]
	if !ok {
		if req.ID == nil {
			return nil
		}
		return s.marshal(v2Response{ID: id, Error: &stdError{-32601, "Method not found"}})
	}
	res, err := h(req.Params)
	if req.ID == nil {
		return nil
	}
	if err != nil {
		return s.marshal(v2Response{ID: id, Error: &stdError{-32602, "Invalid params"}})
	}
	if res == nil {
		res = v2Null
	}
	return s.marshal(v2Response{ID: id, Result: res})
}

func (s *stdlibV2) marshal(r v2Response) []byte {
	r.JSONRPC = "2.0"
	b, _ := jsonv2.Marshal(r)
	return b
}

func v2Subtract(p jsontext.Value) (any, error) {
	var pos []float64
	if err := jsonv2.Unmarshal(p, &pos); err == nil {
		if len(pos) != 2 {
			return nil, errStdParams
		}
		return pos[0] - pos[1], nil
	}
	var named struct {
		Minuend    *float64 `json:"minuend"`
		Subtrahend *float64 `json:"subtrahend"`
	}
	if err := jsonv2.Unmarshal(p, &named); err != nil || named.Minuend == nil || named.Subtrahend == nil {
		return nil, errStdParams
	}
	return *named.Minuend - *named.Subtrahend, nil
}

func v2Sum(p jsontext.Value) (any, error) {
	var nums []float64
	if err := jsonv2.Unmarshal(p, &nums); err != nil {
		return nil, errStdParams
	}
	var total float64
	for _, n := range nums {
		total += n
	}
	return total, nil
}
