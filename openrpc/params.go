package openrpc

import (
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/jetrpc/jetrpc/dispatch"
)

// derivation is what a handler's Go types say about its method.
type derivation struct {
	params    []ContentDescriptor
	members   bool // params are a struct's members: their names are real
	structure ParamStructure
	result    ContentDescriptor
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// derive describes a Typed handler's params and result the way dispatch's
// binder takes them (see dispatch.Typed): a struct P by name or by
// position, its members in order; a slice P by position, any number of its
// elements; an array [N]T P by position, N of them; a map P by name, names
// unknown; an interface or json.Unmarshaler P as it comes; any other P one
// value by position. A raw handler says nothing: params either way, any
// result.
func derive(s *Schemas, h dispatch.Handler) (derivation, error) {
	d := derivation{structure: Either, result: ContentDescriptor{Name: "result", Schema: anySchema}}
	p, r, typed := dispatch.TypesOf(h)
	if !typed {
		return d, nil
	}
	var err error
	if d.result.Schema, err = s.Of(r); err != nil {
		return d, err
	}
	st := p
	if p.Kind() == reflect.Pointer && p.Elem().Kind() == reflect.Struct {
		st = p.Elem()
	}
	switch {
	case implements(st, unmarshalerType), p.Kind() == reflect.Interface:
	case st.Kind() == reflect.Struct:
		d.members = true
		err = d.structParams(s, st)
	case p.Kind() == reflect.Slice:
		d.structure = ByPosition
		err = d.label(s, p.Elem(), 1, false, true)
	case p.Kind() == reflect.Array:
		d.structure = ByPosition
		err = d.label(s, p.Elem(), p.Len(), true, false)
	case p.Kind() == reflect.Map:
		d.structure = ByName
	default:
		d.structure = ByPosition
		err = d.label(s, p, 1, true, false)
	}
	return d, err
}

// structParams describes the members of struct t in position order.
func (d *derivation) structParams(s *Schemas, t reflect.Type) error {
	for _, f := range fieldsOf(t) {
		v, err := s.fieldSchema(f)
		if err != nil {
			return err
		}
		schema, err := encodeSchema(v)
		if err != nil {
			return err
		}
		d.params = append(d.params, ContentDescriptor{Name: f.name, Description: f.description, Schema: schema, Required: !f.omit})
	}
	return nil
}

// label describes n positional params of type t, named arg0, arg1, ...
func (d *derivation) label(s *Schemas, t reflect.Type, n int, required, variadic bool) error {
	schema, err := s.Of(t)
	if err != nil {
		return err
	}
	for i := range n {
		d.params = append(d.params, ContentDescriptor{Name: "arg" + strconv.Itoa(i), Schema: schema, Required: required, Variadic: variadic})
	}
	return nil
}
