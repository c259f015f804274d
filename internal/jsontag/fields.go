package jsontag

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
)

// NOTE: Fields is encoding/json's typeFields, step for step, without the
// codecs: a breadth-first walk of the embedded structs (a struct type
// explored at one depth is not explored again deeper; one embedded twice at
// a depth has its fields doubled so that they annihilate), then per name the
// dominant field (the shallowest; at equal depth the only tagged one, else
// none), in index order. internal/marshal, internal/unmarshal and openrpc
// all describe a struct with it, so the encoder, the decoder (and with it
// dispatch's positional params) and the schema agree on its members.

// Field is one JSON member of a struct type.
type Field struct {
	Name   string
	Tagged bool         // the name came from the json tag
	Index  []int        // as in reflect.Value.FieldByIndex, from the outer struct
	Type   reflect.Type // the struct field's declared type
	Opts   string       // the tag's options after the name ("omitempty,string")
	Tag    reflect.StructTag
}

// Has reports whether the member's tag has option opt.
func (f *Field) Has(opt string) bool { return HasOpt(f.Opts, opt) }

// Fields lists the JSON members of struct type t in index order (declaration
// order with embedded structs flattened), as encoding/json finds them.
func Fields(t reflect.Type) []Field {
	var fields []Field
	next := []Field{{Type: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.Type] {
				continue
			}
			visited[f.Type] = true
			for i := range f.Type.NumField() {
				m, ok, explore := member(f.Type.Field(i), f.Index)
				switch {
				case !ok:
				case explore:
					if nextCount[m.Type]++; nextCount[m.Type] == 1 {
						next = append(next, m)
					}
				default:
					fields = append(fields, m)
					if count[f.Type] > 1 {
						fields = append(fields, m) // a duplicate: annihilated below
					}
				}
			}
		}
	}
	return dominant(fields)
}

// member reads struct field sf of the struct at index parent: ok is false
// for a field encoding/json ignores, explore true for an embedded struct to
// flatten (then m.Type is that struct).
func member(sf reflect.StructField, parent []int) (m Field, ok, explore bool) {
	if sf.Anonymous {
		t := sf.Type
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if !sf.IsExported() && t.Kind() != reflect.Struct {
			return m, false, false
		}
	} else if !sf.IsExported() {
		return m, false, false
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return m, false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if !Valid(name) {
		name = ""
	}
	index := append(slices.Clone(parent), sf.Index...)
	ft := sf.Type
	if ft.Name() == "" && ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
		return Field{Index: index, Type: ft}, true, true
	}
	m = Field{Name: name, Tagged: name != "", Index: index, Type: sf.Type, Opts: opts, Tag: sf.Tag}
	if name == "" {
		m.Name = sf.Name
	}
	return m, true, false
}

// dominant keeps, per name, the field encoding/json's dominantField keeps,
// and returns them in index order.
func dominant(fields []Field) []Field {
	slices.SortFunc(fields, func(a, b Field) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.Index), len(b.Index)); c != 0 {
			return c
		}
		if a.Tagged != b.Tagged {
			if a.Tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.Index, b.Index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].Name == fields[i].Name {
			j++
		}
		f, g := fields[i], fields[min(i+1, j-1)]
		if j-i == 1 || len(f.Index) != len(g.Index) || f.Tagged != g.Tagged {
			out = append(out, f)
		}
		i = j
	}
	slices.SortFunc(out, func(a, b Field) int { return slices.Compare(a.Index, b.Index) })
	return out
}

// ElemIfUnnamedPointer returns t's element when t is an unnamed pointer
// type (*T), else t: the type ",string" and embedding look through.
func ElemIfUnnamedPointer(t reflect.Type) reflect.Type {
	if t.Name() == "" && t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}
