package paramheader

// Header marks in input schemas: writing them from struct tags (Mark),
// reading and checking them (Read).

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/jsontag"
)

const (
	headerMark   = "x-mcp-header" // the schema keyword
	headerTag    = "mcpheader"    // the struct tag that writes it
	errMarkIntro = "mcp: x-mcp-header: "
)

// Mark returns raw, the schema of struct type t, with the x-mcp-header
// marks of t's `mcpheader:"NAME"` struct tags.
func Mark(t reflect.Type, raw json.RawMessage) (json.RawMessage, error) {
	var marks []goMark
	if err := tagMarks(t, nil, &marks, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	for _, m := range marks {
		raw = addMark(make([]byte, 0, len(raw)+len(m.name)+20), raw, m.path, m.name)
	}
	if hs, err := Read(raw); err != nil {
		return nil, err
	} else if len(hs) != len(marks) {
		return nil, errors.New(errMarkIntro + "a tagged member of " + t.String() + " is not in its schema's properties")
	}
	return raw, nil
}

type goMark struct {
	path []string
	name string
}

// tagMarks collects the tagged members of struct type t. Unnamed structs
// are inlined in the schema, so their members' marks are reachable; a
// named struct goes under $defs, where a mark is not.
func tagMarks(t reflect.Type, path []string, out *[]goMark, seen map[reflect.Type]bool) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	for _, f := range jsontag.Fields(t) {
		p := append(path[:len(path):len(path)], f.Name)
		if name, ok := f.Tag.Lookup(headerTag); ok {
			*out = append(*out, goMark{p, name})
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() != reflect.Struct:
			if hasTags(ft, seen) {
				return errors.New(errMarkIntro + strings.Join(p, ".") + " is a " + ft.String() +
					", whose elements' header marks are not reachable from the root through properties alone")
			}
		case ft.Name() == "":
			if err := tagMarks(ft, p, out, seen); err != nil {
				return err
			}
		case hasTags(ft, seen):
			return errors.New(errMarkIntro + strings.Join(p, ".") + " is a " + ft.String() +
				", a named struct that the schema refers to under $defs, where a header mark is not reachable: use an unnamed struct type")
		}
	}
	return nil
}

// hasTags reports whether struct type t or a struct inside it has a header
// tag (seen breaks cycles).
func hasTags(t reflect.Type, seen map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return false
	}
	seen[t] = true
	for _, f := range jsontag.Fields(t) {
		if _, ok := f.Tag.Lookup(headerTag); ok || hasTags(f.Type, seen) {
			return true
		}
	}
	return false
}

// addMark appends object schema with "x-mcp-header":name added to the
// property at path (copied member by member otherwise). A marked
// integer's bounds are narrowed to the safe integers, as SEP-2243 asks
// (openrpc writes an int64's).
func addMark(dst, schema []byte, path []string, name string) []byte {
	var it decode.Iter
	it.Reset(schema)
	dst = append(dst, '{')
	n := 0
	integer := len(path) == 0 && propType(schema) == "integer"
	var bounds [2]bool // minimum, maximum seen
	for it.Next() {
		if n++; n > 1 {
			dst = append(dst, ',')
		}
		k, v := it.Key(), it.Value()
		dst = append(append(append(dst, '"'), k...), `":`...)
		switch {
		case integer && decode.KeyEquals(k, "minimum"):
			dst, bounds[0] = appendBound(dst, v, false), true
			continue
		case integer && decode.KeyEquals(k, "maximum"):
			dst, bounds[1] = appendBound(dst, v, true), true
			continue
		case len(path) == 0 || !decode.KeyEquals(k, "properties"):
			dst = append(dst, v...)
			continue
		}
		var props decode.Iter
		props.Reset(v)
		dst = append(dst, '{')
		for i := 0; props.Next(); i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			pk, pv := props.Key(), props.Value()
			dst = append(append(append(dst, '"'), pk...), `":`...)
			if decode.KeyEquals(pk, path[0]) {
				dst = addMark(dst, pv, path[1:], name)
			} else {
				dst = append(dst, pv...)
			}
		}
		dst = append(dst, '}')
	}
	if len(path) == 0 {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = encode.AppendString(append(dst, `"`+headerMark+`":`...), name)
		if integer && !bounds[0] {
			dst = appendBound(append(dst, `,"minimum":`...), nil, false)
		}
		if integer && !bounds[1] {
			dst = appendBound(append(dst, `,"maximum":`...), nil, true)
		}
	}
	return append(dst, '}')
}

// appendBound appends the bound v (nil: none) of an integer, kept within
// the safe integers.
func appendBound(dst, v []byte, upper bool) []byte {
	f, err := strconv.ParseFloat(string(v), 64)
	switch {
	case err != nil && upper, upper && f > maxSafeInt:
		f = maxSafeInt
	case err != nil, !upper && f < -maxSafeInt:
		f = -maxSafeInt
	default:
		return append(dst, v...)
	}
	return strconv.AppendInt(dst, int64(f), 10)
}

// Read reads the x-mcp-header marks of a tool's input schema and checks
// them as SEP-2243 asks: each on a property reachable from the root
// through "properties" alone, of type string, integer or boolean, named by
// a non-empty HTTP token, the names unique regardless of case.
func Read(schema []byte) ([]Header, error) {
	if !json.Valid(schema) {
		return nil, errors.New("mcp: the input schema is not valid JSON")
	}
	var w markWalk
	w.node(schema, nil, true, false)
	return w.out, w.err
}

type markWalk struct {
	out []Header
	err error
}

// node walks one schema: reachable says the properties chain from the root
// got here, prop that it is a property (the root is not).
func (w *markWalk) node(schema []byte, path []string, reachable, prop bool) {
	var it decode.Iter
	if w.err != nil || !it.Reset(schema) {
		return
	}
	if !it.IsObject() {
		for it.Next() {
			w.node(it.Value(), path, false, false)
		}
		return
	}
	for it.Next() {
		k, v := it.Key(), it.Value()
		switch {
		case decode.KeyEquals(k, headerMark):
			if v[0] == '"' || reachable && prop {
				w.mark(schema, v, path, reachable && prop)
			}
		case decode.KeyEquals(k, "properties") && reachable:
			var props decode.Iter
			props.Reset(v)
			for props.Next() {
				name := string(unquote(props.Key()))
				w.node(props.Value(), append(path[:len(path):len(path)], name), true, true)
			}
		case decode.KeyEquals(k, "const") || decode.KeyEquals(k, "enum") ||
			decode.KeyEquals(k, "default") || decode.KeyEquals(k, "examples"):
			// instances, not schemas
		default:
			w.node(v, path, false, false)
		}
	}
}

// mark records the mark v of the property schema at path (ok: a place a
// mark may be).
func (w *markWalk) mark(schema, v []byte, path []string, ok bool) {
	where := "the root"
	if len(path) > 0 {
		where = strings.Join(path, ".")
	}
	fail := func(why string) { w.err = errors.New(errMarkIntro + where + ": " + why) }
	if !ok {
		fail("a header mark must be on a property reached from the root through properties alone")
		return
	}
	name := plain(v)
	if name == nil || !validHeaderName(name) {
		fail("the header name must be a non-empty HTTP token (letters, digits and !#$%&'*+-.^_`|~)")
		return
	}
	if propType(schema) == "" {
		fail("a header mark must be on a property of type string, integer or boolean")
		return
	}
	for _, h := range w.out {
		if strings.EqualFold(h.Name[len(Prefix):], string(name)) {
			fail("the header name " + string(name) + " is used twice (names are not case-sensitive)")
			return
		}
	}
	w.out = append(w.out, Header{Path: path, Name: Prefix + string(name)})
}

// validHeaderName reports whether s is an HTTP token (RFC 9110 §5.6.2).
func validHeaderName(s []byte) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return len(s) > 0
}

// propType returns a property schema's type for a mark: string, integer or
// boolean (alone or beside "null"); "" otherwise.
func propType(schema []byte) string {
	var it decode.Iter
	it.Reset(schema)
	for it.Next() {
		if !decode.KeyEquals(it.Key(), "type") {
			continue
		}
		v := it.Value()
		if s := plain(v); s != nil {
			return primitive(string(s))
		}
		var types decode.Iter
		if !types.Reset(v) || types.IsObject() {
			return ""
		}
		found := ""
		for types.Next() {
			s := plain(types.Value())
			switch {
			case string(s) == "null":
			case found != "" || primitive(string(s)) == "":
				return ""
			default:
				found = string(s)
			}
		}
		return found
	}
	return ""
}

func primitive(t string) string {
	switch t {
	case "string", "integer", "boolean":
		return t
	}
	return ""
}
