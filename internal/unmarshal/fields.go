package unmarshal

// NOTE: the members of a struct, found as encoding/json's typeFields finds
// them: breadth first over embedded structs (each struct type explored once,
// at its shallowest depth; one embedded twice at a depth has its fields
// doubled so they annihilate), then per name the dominant field (the
// shallowest; at equal depth the only tagged one, else none), in index
// order. A member behind embedded pointers gets a Decoder that walks them.

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/jetrpc/jetrpc/internal/jsontag"
)

// fieldInfo is a member found by typeFields, or an embedded struct to
// explore.
type fieldInfo struct {
	name   string
	tagged bool
	quoted bool         // ",string" applies
	index  []int        // field indexes from the outer struct
	typ    reflect.Type // the field's type (to explore: the struct)
}

func (c *compiler) structFields(t reflect.Type) ([]Field, error) {
	var fields []Field
	for _, fi := range typeFields(t) {
		f, err := c.field(t, fi)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	return fields, nil
}

func typeFields(t reflect.Type) []fieldInfo {
	var current []fieldInfo
	next := []fieldInfo{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	var fields []fieldInfo
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := range f.typ.NumField() {
				fi, ok, explore := member(f.typ.Field(i), f.index)
				switch {
				case !ok:
				case explore:
					if nextCount[fi.typ]++; nextCount[fi.typ] == 1 {
						next = append(next, fi)
					}
				default:
					fields = append(fields, fi)
					if count[f.typ] > 1 {
						fields = append(fields, fi)
					}
				}
			}
		}
	}
	return dominantFields(fields)
}

// member reads struct field sf of the struct at index parent: ok is false
// for a field encoding/json ignores, explore true for an embedded struct to
// flatten.
func member(sf reflect.StructField, parent []int) (fi fieldInfo, ok, explore bool) {
	if sf.Anonymous {
		t := sf.Type
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if !sf.IsExported() && t.Kind() != reflect.Struct {
			return fi, false, false
		}
	} else if !sf.IsExported() {
		return fi, false, false
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return fi, false, false
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
		return fieldInfo{index: index, typ: ft}, true, true
	}
	fi = fieldInfo{name: name, tagged: name != "", index: index, typ: sf.Type}
	fi.quoted = jsontag.HasOpt(opts, "string") && quotable(ft.Kind())
	if name == "" {
		fi.name = sf.Name
	}
	return fi, true, false
}

// dominantFields keeps, per name, the field encoding/json's dominantField
// keeps, and returns them in index order.
func dominantFields(fields []fieldInfo) []fieldInfo {
	slices.SortFunc(fields, func(a, b fieldInfo) int {
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
	slices.SortFunc(out, func(a, b fieldInfo) int { return slices.Compare(a.index, b.index) })
	return out
}

// embedStep is an embedded pointer on the way to a member: at off from
// the struct reached so far.
type embedStep struct {
	off      uintptr
	elem     reflect.Type
	rt       unsafe.Pointer // elem's runtime type, to allocate it
	exported bool           // settable: encoding/json cannot set an unexported one
}

// field compiles the member fi of struct t.
func (c *compiler) field(t reflect.Type, fi fieldInfo) (Field, error) {
	var d *Decoder
	var err error
	if fi.quoted {
		d, err = c.quotedDecoder(fi.typ)
	} else {
		d, err = c.valueDec(fi.typ)
	}
	if err != nil {
		return Field{}, err
	}
	steps, off := path(t, fi.index)
	if len(steps) > 0 {
		d, off = viaEmbedded(steps, off, d), 0
	}
	return Field{Name: fi.name, Offset: off, Decoder: d, fold: appendFolded(nil, []byte(fi.name))}, nil
}

// path follows index from struct t: the embedded pointers on the way and
// the member's offset in the last struct.
func path(t reflect.Type, index []int) ([]embedStep, uintptr) {
	var steps []embedStep
	var off uintptr
	for k, x := range index {
		sf := t.Field(x)
		off += sf.Offset
		if k == len(index)-1 {
			break
		}
		t = sf.Type
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
			steps = append(steps, embedStep{off: off, elem: t, rt: rtypeOf(t), exported: sf.IsExported()})
			off = 0
		}
	}
	return steps, off
}

// viaEmbedded decodes the member off bytes into the struct reached from
// the outer struct through steps, allocating the embedded structs.
func viaEmbedded(steps []embedStep, off uintptr, d *Decoder) *Decoder {
	fn := func(data []byte, i int, p unsafe.Pointer, depth int) (int, error) {
		for k := range steps {
			s := &steps[k]
			pp := (*unsafe.Pointer)(add(p, s.off))
			if *pp == nil {
				if !s.exported {
					return 0, typeErr("cannot set embedded pointer to unexported struct "+s.elem.String(), i)
				}
				*pp = unsafe_New(s.rt)
			}
			p = *pp
		}
		return d.fn(data, i, add(p, off), depth)
	}
	return &Decoder{typ: d.typ, fn: fn}
}
