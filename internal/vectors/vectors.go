// Package vectors holds the JSON-RPC 2.0 specification's examples as test
// vectors (a copy of shared/vectors/spec.jsonl) and the comparison every
// transport's tests use: responses compared as parsed JSON, error code and
// message only (data may be added), batch members matched by id in any order.
package vectors

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
)

//go:embed spec.jsonl
var specJSONL []byte

// Vector is one case: the exact request bytes and the expected response
// (nil: no response at all).
type Vector struct {
	Name     string          `json:"name"`
	Request  string          `json:"request"`
	Response json.RawMessage `json:"response"`
}

// NoResponse reports whether the vector expects nothing back.
func (v Vector) NoResponse() bool {
	return len(v.Response) == 0 || string(v.Response) == "null"
}

// Spec returns the specification vectors.
func Spec() ([]Vector, error) { return Parse(specJSONL) }

// Raw returns the embedded spec.jsonl bytes.
func Raw() []byte { return specJSONL }

// Parse reads JSON lines of vectors.
func Parse(data []byte) ([]Vector, error) {
	var out []Vector
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var v Vector
		if err := json.Unmarshal(line, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// Check compares a response got (empty: no response) with the vector's.
func (v Vector) Check(got []byte) error {
	got = bytes.TrimSpace(got)
	if v.NoResponse() {
		if len(got) != 0 {
			return fmt.Errorf("want no response, got %s", got)
		}
		return nil
	}
	if len(got) == 0 {
		return errors.New("want a response, got none")
	}
	var want, have any
	if err := json.Unmarshal(v.Response, &want); err != nil {
		return err
	}
	if err := json.Unmarshal(got, &have); err != nil {
		return fmt.Errorf("response is not JSON: %v: %s", err, got)
	}
	if !reflect.DeepEqual(normalize(want), normalize(have)) {
		return fmt.Errorf("want %s\n got %s", v.Response, got)
	}
	return nil
}

// normalize drops error.data and sorts batch members so comparison is by content.
func normalize(x any) any {
	switch t := x.(type) {
	case []any:
		out := make([]any, len(t))
		for i := range t {
			out[i] = normalize(t[i])
		}
		sort.Slice(out, func(i, j int) bool {
			bi, _ := json.Marshal(out[i])
			bj, _ := json.Marshal(out[j])
			return string(bi) < string(bj)
		})
		return out
	case map[string]any:
		if e, ok := t["error"].(map[string]any); ok {
			delete(e, "data")
		}
		return t
	}
	return x
}
