package openrpc

// NOTE: the members of a struct as encoding/json finds them, the same walk
// internal/unmarshal makes for dispatch's binder (breadth first over
// embedded structs, each struct type explored once at its shallowest
// depth; per name the dominant field; index order), so that the schema and
// the positional params describe exactly what a Typed handler binds.
// TestFieldsMatchBinder holds the two together.

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

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
// embedded structs flattened.
func fieldsOf(t reflect.Type) []field {
	var fields []field
	next := []field{{typ: t}}
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
				fi, ok, explore := structMember(f.typ.Field(i), f.index)
				switch {
				case !ok:
				case explore:
					if nextCount[fi.typ]++; nextCount[fi.typ] == 1 {
						next = append(next, fi)
					}
				default:
					fields = append(fields, fi)
					if count[f.typ] > 1 {
						fields = append(fields, fi) // annihilated below
					}
				}
			}
		}
	}
	return dominant(fields)
}

// structMember reads struct field sf: ok is false for a field encoding/json
// ignores, explore true for an embedded struct to flatten.
func structMember(sf reflect.StructField, parent []int) (f field, ok, explore bool) {
	if sf.Anonymous {
		t := sf.Type
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if !sf.IsExported() && t.Kind() != reflect.Struct {
			return f, false, false
		}
	} else if !sf.IsExported() {
		return f, false, false
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return f, false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if !jsontag.Valid(name) {
		name = ""
	}
	index := append(slices.Clone(parent), sf.Index...)
	ft := sf.Type
	if ft.Name() == "" && ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
		return field{index: index, typ: ft}, true, true
	}
	f = field{name: name, tagged: name != "", index: index, typ: sf.Type, description: sf.Tag.Get("description")}
	f.omit = jsontag.HasOpt(opts, "omitempty") || jsontag.HasOpt(opts, "omitzero")
	f.quoted = jsontag.HasOpt(opts, "string") && quotable(ft.Kind())
	if name == "" {
		f.name = sf.Name
	}
	return f, true, false
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

// dominant keeps, per name, the field encoding/json keeps, in index order.
func dominant(fields []field) []field {
	slices.SortFunc(fields, func(a, b field) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		f, g := fields[i], fields[min(i+1, j-1)]
		if j-i == 1 || len(f.index) != len(g.index) || f.tagged != g.tagged {
			out = append(out, f)
		}
		i = j
	}
	slices.SortFunc(out, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return out
}
