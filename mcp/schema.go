package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"

	"github.com/jetrpc/jetrpc/openrpc"
)

// schemaOf returns t's JSON Schema from package openrpc's generator (the
// rules of dispatch's binder), made self-contained: a root $ref is
// replaced by its component, the named structs it uses go under $defs and
// the refs point there ("#/$defs/Name", which JSON Schema 2020-12, MCP's
// default dialect, and draft-07 validators both resolve).
func schemaOf(t reflect.Type) (json.RawMessage, error) {
	var s openrpc.Schemas
	root, err := s.Of(t)
	if err != nil {
		return nil, err
	}
	defs := s.Components()
	var ref struct {
		Ref string `json:"$ref"`
	}
	if json.Unmarshal(root, &ref) == nil && strings.HasPrefix(ref.Ref, openrpc.RefPrefix) {
		name := strings.TrimPrefix(ref.Ref, openrpc.RefPrefix)
		root = defs[name]
		delete(defs, name) // a recursive type refers to itself: see below
		if bytes.Contains(root, []byte(`"`+openrpc.RefPrefix+name+`"`)) {
			defs[name] = root
		}
	}
	root = rewriteRefs(root)
	if len(defs) == 0 {
		return root, nil
	}
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.Write(root[:len(root)-1]) // the root object, reopened
	b.WriteString(`,"$defs":{`)
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		b.Write(k)
		b.WriteByte(':')
		b.Write(rewriteRefs(defs[n]))
	}
	b.WriteString("}}")
	return b.Bytes(), nil
}

// rewriteRefs points the components' refs at $defs.
func rewriteRefs(schema []byte) []byte {
	return bytes.ReplaceAll(schema, []byte(`"$ref":"`+openrpc.RefPrefix), []byte(`"$ref":"#/$defs/`))
}
