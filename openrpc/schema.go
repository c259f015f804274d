package openrpc

// NOTE: Go types to JSON Schema (draft-07, the dialect of OpenRPC 1.3).
// A schema is built as an obj (members in order) and encoded once. Named
// struct types go to the components and are referred to with $ref, which
// is also how a type that refers to itself ends; everything else is
// inline. The rules follow what encoding/json writes and what dispatch's
// binder accepts: see Schemas.

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Schemer is implemented by a type that gives its own JSON Schema (raw
// JSON). It is called on the zero value, through a pointer.
type Schemer interface {
	OpenRPCSchema() json.RawMessage
}

// RefPrefix starts the $ref of a schema in the document's components.
const RefPrefix = "#/components/schemas/"

// Schemas turns Go types into JSON Schemas with encoding/json's rules:
//
//   - bool is "boolean"; every integer kind is "integer" with the kind's
//     minimum and maximum; float32 and float64 are "number" (float32 with
//     its range); string is "string", []byte a base64 "string";
//   - a slice is an "array" of its element; an array [N]T also has
//     minItems and maxItems N; a map with string, integer or
//     encoding.TextMarshaler keys is an "object" of additionalProperties;
//   - a pointer is its element's schema; an interface, json.RawMessage and
//     a json.Marshaler are {} (any value); json.Number is "number";
//     time.Time a "string" of format "date-time"; another
//     encoding.TextMarshaler a "string"; a Schemer gives its own;
//   - a struct is an "object" of its members as encoding/json sees them
//     (json tags, embedded structs flattened), each required unless
//     tagged omitempty or omitzero, with a `description:"..."` tag as its
//     description. A named struct type is put in the components once and
//     referred to with {"$ref":"#/components/schemas/Name"}, so recursive
//     types end there.
//
// Channels, functions and complex numbers have no JSON form: Of fails.
// The zero value is ready to use; a Schemas is not safe for concurrent use.
type Schemas struct {
	defs  map[string]json.RawMessage
	names map[reflect.Type]string
	taken map[string]bool
}

// Of returns the schema of t, adding the named structs it uses to the
// components.
func (s *Schemas) Of(t reflect.Type) (json.RawMessage, error) {
	v, err := s.schema(t)
	if err != nil {
		return nil, err
	}
	return encodeSchema(v)
}

// Components returns the component schemas by name (the map is the
// Schemas' own; nil when there are none).
func (s *Schemas) Components() map[string]json.RawMessage { return s.defs }

func encodeSchema(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	return json.RawMessage(b), err
}

var (
	schemerType   = reflect.TypeFor[Schemer]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
	timeType      = reflect.TypeFor[time.Time]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	numberType    = reflect.TypeFor[json.Number]()
)

// implements reports whether t or *t implements it.
func implements(t, it reflect.Type) bool {
	return t.Implements(it) || reflect.PointerTo(t).Implements(it)
}

// schema returns the schema of t: an obj, or raw JSON from a Schemer.
func (s *Schemas) schema(t reflect.Type) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case implements(t, schemerType):
		return schemerOf(t)
	case t == timeType:
		return obj{{"type", "string"}, {"format", "date-time"}}, nil
	case t == numberType:
		return obj{{"type", "number"}}, nil
	case t == rawType, implements(t, marshalerType):
		return obj{}, nil
	case implements(t, textType):
		return obj{{"type", "string"}}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return obj{{"type", "boolean"}}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		return obj{{"type", "integer"}, {"minimum", json.Number(strconv.FormatInt(-1<<(bits-1), 10))},
			{"maximum", json.Number(strconv.FormatInt(1<<(bits-1)-1, 10))}}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return obj{{"type", "integer"}, {"minimum", json.Number("0")},
			{"maximum", json.Number(strconv.FormatUint(math.MaxUint64>>(64-t.Bits()), 10))}}, nil
	case reflect.Float32:
		m := strconv.FormatFloat(math.MaxFloat32, 'g', -1, 32)
		return obj{{"type", "number"}, {"minimum", json.Number("-" + m)}, {"maximum", json.Number(m)}}, nil
	case reflect.Float64:
		return obj{{"type", "number"}}, nil
	case reflect.String:
		return obj{{"type", "string"}}, nil
	case reflect.Interface:
		return obj{}, nil
	case reflect.Slice, reflect.Array:
		return s.list(t)
	case reflect.Map:
		return s.mapSchema(t)
	case reflect.Struct:
		return s.structRef(t)
	}
	return nil, fmt.Errorf("openrpc: no JSON Schema for %v (encoding/json cannot encode a %v)", t, t.Kind())
}

func schemerOf(t reflect.Type) (any, error) {
	raw := reflect.New(t).Interface().(Schemer).OpenRPCSchema()
	if !json.Valid(raw) {
		return nil, fmt.Errorf("openrpc: %v.OpenRPCSchema returned invalid JSON", t)
	}
	return json.RawMessage(raw), nil
}

// list is the schema of a slice or an array.
func (s *Schemas) list(t reflect.Type) (any, error) {
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !implements(t.Elem(), marshalerType) && !implements(t.Elem(), textType) {
		return obj{{"type", "string"}, {"contentEncoding", "base64"}}, nil
	}
	items, err := s.schema(t.Elem())
	if err != nil {
		return nil, err
	}
	o := obj{{"type", "array"}, {"items", items}}
	if t.Kind() == reflect.Array {
		n := json.Number(strconv.Itoa(t.Len()))
		o = append(o, member{"minItems", n}, member{"maxItems", n})
	}
	return o, nil
}

func (s *Schemas) mapSchema(t reflect.Type) (any, error) {
	o := obj{{"type", "object"}}
	switch k := t.Key(); {
	case k.Kind() == reflect.String, implements(k, textType):
	case k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr:
		o = append(o, member{"propertyNames", obj{{"pattern", "^-?[0-9]+$"}}})
	default:
		return nil, fmt.Errorf("openrpc: no JSON Schema for %v (encoding/json cannot encode map keys of %v)", t, k)
	}
	v, err := s.schema(t.Elem())
	if err != nil {
		return nil, err
	}
	return append(o, member{"additionalProperties", v}), nil
}

// structRef returns a named struct's $ref (adding it to the components the
// first time) or an unnamed struct's schema.
func (s *Schemas) structRef(t reflect.Type) (any, error) {
	if t.Name() == "" {
		return s.structSchema(t)
	}
	if name, ok := s.names[t]; ok {
		return obj{{"$ref", RefPrefix + name}}, nil
	}
	name := s.nameFor(t)
	v, err := s.structSchema(t)
	if err != nil {
		return nil, err
	}
	if s.defs[name], err = encodeSchema(v); err != nil {
		return nil, err
	}
	return obj{{"$ref", RefPrefix + name}}, nil
}

// nameFor reserves t's component name: its Go name, then qualified with
// its package, then numbered.
func (s *Schemas) nameFor(t reflect.Type) string {
	if s.names == nil {
		s.names, s.taken, s.defs = map[reflect.Type]string{}, map[string]bool{}, map[string]json.RawMessage{}
	}
	name := componentName(t.Name())
	if s.taken[name] {
		pkg := t.PkgPath()
		name = componentName(pkg[strings.LastIndexByte(pkg, '/')+1:]) + "_" + name
	}
	for i, base := 2, name; s.taken[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	s.names[t], s.taken[name] = name, true
	return name
}

// componentName keeps letters, digits, '_', '-' and '.' (a generic type's
// brackets and commas become '_').
func componentName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' {
			return r
		}
		return '_'
	}, s)
}

func (s *Schemas) structSchema(t reflect.Type) (any, error) {
	props := obj{}
	var required []string
	for _, f := range fieldsOf(t) {
		v, err := s.fieldSchema(f)
		if err != nil {
			return nil, err
		}
		props = append(props, member{f.name, v})
		if !f.omit {
			required = append(required, f.name)
		}
	}
	o := obj{{"type", "object"}, {"properties", props}}
	if len(required) > 0 {
		o = append(o, member{"required", required})
	}
	return o, nil
}

// fieldSchema is a member's schema with its description tag.
func (s *Schemas) fieldSchema(f field) (any, error) {
	var v any = obj{{"type", "string"}} // ",string": quoted
	if !f.quoted {
		var err error
		if v, err = s.schema(f.typ); err != nil {
			return nil, err
		}
	}
	if o, ok := v.(obj); ok && f.description != "" {
		v = append(o[:len(o):len(o)], member{"description", f.description})
	}
	return v, nil
}

// obj is a JSON object with its members in order.
type obj []member

type member struct {
	key string
	val any
}

// MarshalJSON writes the members in order.
func (o obj) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(m.key)
		v, err := json.Marshal(m.val)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}
