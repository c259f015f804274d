package marshal

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	"github.com/jetrpc/jetrpc/internal/jsontag"
)

// NOTE: fieldSpecs is encoding/json's typeFields, step for step, without the
// encoders: a breadth-first walk of the embedded structs (a type visited at
// one depth is not visited again deeper; a type embedded twice at one depth
// yields each field twice so that it cancels), then the Go visibility rules
// as modified by tags (dominantField), then the order of index sequences.

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

// fieldSpecs lists the JSON members of struct type t in encoding order.
func fieldSpecs(t reflect.Type) []fieldSpec {
	var fields []fieldSpec
	next := []fieldSpec{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := range f.typ.NumField() {
				sf, ok := specOf(f, i)
				if !ok {
					continue
				}
				if sf.name != "" {
					fields = append(fields, sf)
					if count[f.typ] > 1 {
						fields = append(fields, sf) // a duplicate: annihilated below
					}
					continue
				}
				if nextCount[sf.typ]++; nextCount[sf.typ] == 1 {
					next = append(next, fieldSpec{index: sf.index, typ: sf.typ})
				}
			}
		}
	}
	fields = dominantFields(fields)
	slices.SortFunc(fields, func(a, b fieldSpec) int { return slices.Compare(a.index, b.index) })
	return fields
}

// specOf reads field i of f.typ. ok is false for a field encoding/json
// skips; a spec without a name is an embedded struct to walk next.
func specOf(f fieldSpec, i int) (fieldSpec, bool) {
	sf := f.typ.Field(i)
	if sf.Anonymous {
		t := sf.Type
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if !sf.IsExported() && t.Kind() != reflect.Struct {
			return fieldSpec{}, false
		}
	} else if !sf.IsExported() {
		return fieldSpec{}, false
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return fieldSpec{}, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if !jsontag.Valid(name) {
		name = ""
	}
	ft := sf.Type
	if ft.Name() == "" && ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	s := fieldSpec{index: append(slices.Clip(f.index), i), typ: ft}
	if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
		return s, true
	}
	s.tag = name != ""
	if name == "" {
		name = sf.Name
	}
	s.name = name
	s.omitEmpty = jsontag.HasOpt(opts, "omitempty")
	s.omitZero = jsontag.HasOpt(opts, "omitzero")
	s.quoted = jsontag.HasOpt(opts, "string") && quotable(sf.Type)
	return s, true
}

// dominantFields keeps, for each name, the one field that dominates (the
// shallowest; at equal depth the tagged one; two left is a conflict and
// drops the name).
func dominantFields(fields []fieldSpec) []fieldSpec {
	slices.SortFunc(fields, func(a, b fieldSpec) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tag != b.tag {
			if a.tag {
				return -1
			}
			return +1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		if j-i == 1 || len(fields[i].index) != len(fields[i+1].index) || fields[i].tag != fields[i+1].tag {
			out = append(out, fields[i])
		}
		i = j
	}
	return out
}
