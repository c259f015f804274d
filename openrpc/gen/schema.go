package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// schema is the part of a JSON Schema the generator reads. A boolean
// schema (true, false) reads as an empty one: any value.
type schema struct {
	Ref                  string            `json:"$ref"`
	Type                 typeList          `json:"type"`
	Format               string            `json:"format"`
	ContentEncoding      string            `json:"contentEncoding"`
	Description          string            `json:"description"`
	Properties           props             `json:"properties"`
	Required             []string          `json:"required"`
	Items                json.RawMessage   `json:"items"`
	AdditionalProperties json.RawMessage   `json:"additionalProperties"`
	AllOf                []json.RawMessage `json:"allOf"`
	AnyOf                []json.RawMessage `json:"anyOf"`
	OneOf                []json.RawMessage `json:"oneOf"`
	Minimum              *json.Number      `json:"minimum"`
	Maximum              *json.Number      `json:"maximum"`
}

// parseSchema reads raw (absent: any value).
func parseSchema(raw json.RawMessage) (*schema, error) {
	s := new(schema)
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		if len(raw) > 0 && string(raw) != "true" && string(raw) != "false" {
			return nil, fmt.Errorf("a schema must be an object or a boolean, not %.40s", raw)
		}
		return s, nil
	}
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return s, nil
}

// typeList is "type": one name or a list of them.
type typeList []string

func (t *typeList) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		err := json.Unmarshal(b, &s)
		*t = typeList{s}
		return err
	}
	return json.Unmarshal(b, (*[]string)(t))
}

// only returns the single type other than "null", or "".
func (t typeList) only() string {
	var out string
	for _, n := range t {
		if n == "null" {
			continue
		}
		if out != "" {
			return ""
		}
		out = n
	}
	return out
}

// props are "properties" in the order written.
type props []prop

type prop struct {
	name string
	raw  json.RawMessage
}

func (p *props) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("properties must be an object")
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return err
		}
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return err
		}
		*p = append(*p, prop{name: t.(string), raw: raw})
	}
	return nil
}

// isObject reports whether s describes a JSON object with named members.
func (s *schema) isObject() bool {
	return len(s.Properties) > 0 || s.Type.only() == "object" && len(s.AdditionalProperties) == 0 && s.Ref == ""
}
