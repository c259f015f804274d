package unmarshal

// NOTE: the members of a struct, found as encoding/json's typeFields finds
// them: breadth first over embedded structs (each struct type explored once,
// at its shallowest depth; one embedded twice at a depth has its fields
// doubled so they annihilate), then per name the dominant field (the
// shallowest; at equal depth the only tagged one, else none), in index
// order. A member behind embedded pointers gets a Decoder that walks them.

import (
	"reflect"
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

// typeFields lists the members of struct t as encoding/json finds them
// (jsontag.Fields).
func typeFields(t reflect.Type) []fieldInfo {
	fs := jsontag.Fields(t)
	infos := make([]fieldInfo, len(fs))
	for i := range fs {
		f := &fs[i]
		infos[i] = fieldInfo{
			name: f.Name, tagged: f.Tagged, index: f.Index, typ: f.Type,
			quoted: f.Has("string") && quotable(jsontag.ElemIfUnnamedPointer(f.Type).Kind()),
		}
	}
	return infos
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
	return Field{Name: fi.name, Offset: off, Decoder: d, Plain: !fi.quoted && len(steps) == 0,
		fold: appendFolded(nil, []byte(fi.name))}, nil
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
	fn := func(data []byte, i int, p unsafe.Pointer, repair bool) (int, error) {
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
		return d.fn(data, i, add(p, off), repair)
	}
	return &Decoder{typ: d.typ, fn: fn}
}
