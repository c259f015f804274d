package openrpc

// NOTE: the members of a struct as encoding/json finds them, the same walk
// internal/unmarshal makes for dispatch's binder (breadth first over
// embedded structs, each struct type explored once at its shallowest
// depth; per name the dominant field; index order), so that the schema and
// the positional params describe exactly what a Typed handler binds.
// TestFieldsMatchBinder holds the two together.

import (
	"reflect"

	"github.com/jetrpc/jetrpc/internal/jsontag"
)

// field is one JSON member of a struct type.
type field struct {
	name        string
	tagged      bool
	index       []int
	typ         reflect.Type
	omit        bool // omitempty or omitzero: not required
	quoted      bool // ",string" on a number or bool
	description string
}

// fieldsOf lists the JSON members of struct type t in declaration order,
// embedded structs flattened (jsontag.Fields).
func fieldsOf(t reflect.Type) []field {
	fs := jsontag.Fields(t)
	out := make([]field, len(fs))
	for i := range fs {
		f := &fs[i]
		out[i] = field{
			name: f.Name, tagged: f.Tagged, index: f.Index, typ: f.Type,
			omit:        f.Has("omitempty") || f.Has("omitzero"),
			quoted:      f.Has("string") && quotable(jsontag.ElemIfUnnamedPointer(f.Type).Kind()),
			description: f.Tag.Get("description"),
		}
	}
	return out
}

func quotable(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}
