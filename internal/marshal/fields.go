package marshal

import (
	"reflect"

	"github.com/jetrpc/jetrpc/internal/jsontag"
)

// fieldSpec is one JSON member of a struct type.
type fieldSpec struct {
	name      string
	tag       bool  // the name came from a tag
	index     []int // the field's index sequence, as in reflect.Value.FieldByIndex
	typ       reflect.Type
	omitEmpty bool
	omitZero  bool
	quoted    bool // ,string on a quotable type
}

// fieldSpecs lists the JSON members of struct type t in encoding order
// (jsontag.Fields: encoding/json's typeFields).
func fieldSpecs(t reflect.Type) []fieldSpec {
	fs := jsontag.Fields(t)
	specs := make([]fieldSpec, len(fs))
	for i := range fs {
		f := &fs[i]
		specs[i] = fieldSpec{
			name: f.Name, tag: f.Tagged, index: f.Index, typ: f.Type,
			omitEmpty: f.Has("omitempty"), omitZero: f.Has("omitzero"),
			quoted: f.Has("string") && quotable(f.Type),
		}
	}
	return specs
}
