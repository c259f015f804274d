package bench

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Stdlib is the encoding/json baseline server: what a typical hand-written Go
// JSON-RPC service does, with the demo methods subtract, sum, update,
// notify_hello, notify_sum, get_data and echo. It is a fair baseline, not a
// straw man: it answers the same messages with the same results.
type Stdlib struct {
	methods map[string]func(params json.RawMessage) (any, error)
}

type stdRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
}

type stdError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type stdResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *stdError       `json:"error,omitempty"`
}

var errStdParams = errors.New("invalid params")

// Baseline is a baseline service: Stdlib, or the encoding/json/v2 one
// (NewStdlibV2). Process answers one message (single or batch), nil when
// no answer is due.
type Baseline interface {
	Process(msg []byte) []byte
}

// NewStdlib returns the baseline with the demo methods registered.
func NewStdlib() *Stdlib {
	s := &Stdlib{methods: map[string]func(json.RawMessage) (any, error){}}
	s.methods["subtract"] = stdSubtract
	s.methods["sum"] = stdSum
	for _, name := range []string{"update", "notify_hello", "notify_sum"} {
		s.methods[name] = func(json.RawMessage) (any, error) { return nil, nil }
	}
	s.methods["get_data"] = func(json.RawMessage) (any, error) { return []any{"hello", 5}, nil }
	s.methods["echo"] = func(p json.RawMessage) (any, error) { return p, nil }
	return s
}

// Process answers one message (single or batch); nil when no answer is due.
func (s *Stdlib) Process(msg []byte) []byte {
	trimmed := bytes.TrimSpace(msg)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(trimmed, &batch); err != nil {
			return s.marshal(stdResponse{ID: json.RawMessage("null"), Error: &stdError{-32700, "Parse error"}})
		}
		var out []json.RawMessage
		for _, m := range batch {
			if r := s.one(m); r != nil {
				out = append(out, r)
			}
		}
		if len(out) == 0 {
			return nil
		}
		b, _ := json.Marshal(out)
		return b
	}
	return s.one(trimmed)
}

func (s *Stdlib) one(msg []byte) []byte {
	var req stdRequest
	if err := json.Unmarshal(msg, &req); err != nil {
		return s.marshal(stdResponse{ID: json.RawMessage("null"), Error: &stdError{-32700, "Parse error"}})
	}
	id := req.ID
	if id == nil {
		id = json.RawMessage("null")
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		return s.marshal(stdResponse{ID: id, Error: &stdError{-32600, "Invalid Request"}})
	}
	h, ok := s.methods[req.Method]
	if !ok {
		if req.ID == nil {
			return nil
		}
		return s.marshal(stdResponse{ID: id, Error: &stdError{-32601, "Method not found"}})
	}
	res, err := h(req.Params)
	if req.ID == nil {
		return nil
	}
	if err != nil {
		return s.marshal(stdResponse{ID: id, Error: &stdError{-32602, "Invalid params"}})
	}
	if res == nil {
		res = json.RawMessage("null")
	}
	return s.marshal(stdResponse{ID: id, Result: res})
}

func (s *Stdlib) marshal(r stdResponse) []byte {
	r.JSONRPC = "2.0"
	b, _ := json.Marshal(r)
	return b
}

func stdSubtract(p json.RawMessage) (any, error) {
	var pos []float64
	if err := json.Unmarshal(p, &pos); err == nil {
		if len(pos) != 2 {
			return nil, errStdParams
		}
		return pos[0] - pos[1], nil
	}
	var named struct {
		Minuend    *float64 `json:"minuend"`
		Subtrahend *float64 `json:"subtrahend"`
	}
	if err := json.Unmarshal(p, &named); err != nil || named.Minuend == nil || named.Subtrahend == nil {
		return nil, errStdParams
	}
	return *named.Minuend - *named.Subtrahend, nil
}

func stdSum(p json.RawMessage) (any, error) {
	var nums []float64
	if err := json.Unmarshal(p, &nums); err != nil {
		return nil, errStdParams
	}
	var total float64
	for _, n := range nums {
		total += n
	}
	return total, nil
}
