package gen

// NOTE: schemas to Go types. A component schema becomes a named type,
// declared the first time something refers to it (depth first, so a type
// comes after what it uses, and the order is the same on every run). An
// object with properties becomes a struct; allOf of objects one struct of
// all their members. A struct member of struct type is a value when
// required and a pointer otherwise, and a pointer wherever a value would
// make the type contain itself (a member whose struct is still being
// declared).

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jetrpc/jetrpc/internal/jsontag"
)

const refPrefix = "#/components/schemas/"

// goType returns the Go type of s; hint names the struct an inline object
// becomes.
func (g *generator) goType(s *schema, hint string) (string, error) {
	switch {
	case s.Ref != "":
		return g.ref(s.Ref)
	case len(s.AllOf) > 0:
		return g.allOf(s, hint)
	case len(s.OneOf)+len(s.AnyOf) > 0:
		return g.alternatives(append(s.OneOf, s.AnyOf...), hint)
	case len(s.Properties) > 0:
		return g.declareStruct(g.pkg.take(hint), s.Properties, s.Required)
	}
	switch s.Type.only() {
	case "boolean":
		return "bool", nil
	case "integer":
		return intType(s), nil
	case "number":
		if s.Minimum != nil && s.Maximum != nil && string(*s.Maximum) == strconv.FormatFloat(math.MaxFloat32, 'g', -1, 32) {
			return "float32", nil
		}
		return "float64", nil
	case "string":
		return g.stringType(s), nil
	case "array":
		return g.arrayType(s, hint)
	case "object":
		if len(s.AdditionalProperties) > 0 && s.AdditionalProperties[0] == '{' {
			v, err := g.sub(s.AdditionalProperties, hint+"Value")
			return "map[string]" + v, err
		}
		return "map[string]any", nil
	}
	return "any", nil
}

// sub is the Go type of a nested raw schema.
func (g *generator) sub(raw json.RawMessage, hint string) (string, error) {
	s, err := parseSchema(raw)
	if err != nil {
		return "", err
	}
	return g.goType(s, hint)
}

func (g *generator) stringType(s *schema) string {
	switch {
	case s.Format == "date-time":
		g.usesTime = true
		return "time.Time"
	case s.ContentEncoding == "base64", s.Format == "byte":
		return "[]byte"
	}
	return "string"
}

func (g *generator) arrayType(s *schema, hint string) (string, error) {
	if len(s.Items) == 0 || s.Items[0] == '[' { // any items, or a tuple
		return "[]any", nil
	}
	elem, err := g.sub(s.Items, hint+"Item")
	return "[]" + elem, err
}

// intTypes are the Go integer kinds by their exact ranges.
var intTypes = map[[2]string]string{
	{"-128", "127"}: "int8", {"-32768", "32767"}: "int16", {"-2147483648", "2147483647"}: "int32",
	{"0", "255"}: "uint8", {"0", "65535"}: "uint16", {"0", "4294967295"}: "uint32",
	{"0", "18446744073709551615"}: "uint64",
}

func intType(s *schema) string {
	if s.Minimum == nil || s.Maximum == nil {
		return "int64"
	}
	if t, ok := intTypes[[2]string{string(*s.Minimum), string(*s.Maximum)}]; ok {
		return t
	}
	if min, err := strconv.ParseFloat(string(*s.Minimum), 64); err == nil && min >= 0 {
		if max, err := strconv.ParseFloat(string(*s.Maximum), 64); err == nil && max > math.MaxInt64 {
			return "uint64"
		}
	}
	return "int64"
}

// alternatives: one schema besides null is that schema; more are any.
func (g *generator) alternatives(alts []json.RawMessage, hint string) (string, error) {
	var keep *schema
	for _, raw := range alts {
		s, err := parseSchema(raw)
		if err != nil {
			return "", err
		}
		if len(s.Type) == 1 && s.Type[0] == "null" {
			continue
		}
		if keep != nil {
			return "any", nil
		}
		keep = s
	}
	if keep == nil {
		return "any", nil
	}
	return g.goType(keep, hint)
}

// ref is the Go type a $ref names: a component's type, or any for a
// reference outside the components' schemas.
func (g *generator) ref(ref string) (string, error) {
	key, ok := strings.CutPrefix(ref, refPrefix)
	if !ok {
		return "any", nil
	}
	key = strings.NewReplacer("~1", "/", "~0", "~").Replace(key)
	return g.component(key)
}

// component returns the Go type of the components' schema key, declaring
// it the first time.
func (g *generator) component(key string) (string, error) {
	if name, ok := g.comps[key]; ok {
		return name, nil
	}
	raw, ok := g.schemas[key]
	if !ok {
		return "", fmt.Errorf("$ref to a missing schema %q", key)
	}
	s, err := parseSchema(raw)
	if err != nil {
		return "", fmt.Errorf("schema %q: %w", key, err)
	}
	name := g.pkg.take(exported(key))
	g.comps[key] = name
	g.docs[name] = s.Description
	ps, req, err := g.members(s, map[string]bool{key: true})
	if err != nil {
		return "", fmt.Errorf("schema %q: %w", key, err)
	}
	if len(ps) > 0 {
		return g.declareStruct(name, ps, req)
	}
	under, err := g.goType(s, name+"Value")
	if err != nil {
		return "", err
	}
	if under == name {
		under = "any"
	}
	eq := " "
	if under == "time.Time" || under == "any" {
		eq = " = " // keeps the methods (time.Time's MarshalJSON)
	}
	g.addDecl(name, "type "+name+eq+under+"\n")
	return name, nil
}

// members are the properties of s and of the object schemas its allOf
// names, with their required names; seen stops reference loops.
func (g *generator) members(s *schema, seen map[string]bool) (props, []string, error) {
	ps, req := append(props{}, s.Properties...), append([]string{}, s.Required...)
	for _, raw := range s.AllOf {
		part, err := parseSchema(raw)
		if err != nil {
			return nil, nil, err
		}
		if key, ok := strings.CutPrefix(part.Ref, refPrefix); ok && !seen[key] {
			seen[key] = true
			if part, err = parseSchema(g.schemas[key]); err != nil {
				return nil, nil, err
			}
		}
		more, r, err := g.members(part, seen)
		if err != nil {
			return nil, nil, err
		}
		for _, p := range more {
			if !hasProp(ps, p.name) {
				ps = append(ps, p)
			}
		}
		req = append(req, r...)
	}
	return ps, req, nil
}

func hasProp(ps props, name string) bool {
	for _, p := range ps {
		if p.name == name {
			return true
		}
	}
	return false
}

func (g *generator) allOf(s *schema, hint string) (string, error) {
	ps, req, err := g.members(s, map[string]bool{})
	if err != nil {
		return "", err
	}
	if len(ps) > 0 {
		return g.declareStruct(g.pkg.take(hint), ps, req)
	}
	if len(s.AllOf) == 1 {
		return g.sub(s.AllOf[0], hint)
	}
	return "any", nil
}

// declareStruct declares struct type name with members ps.
func (g *generator) declareStruct(name string, ps props, required []string) (string, error) {
	g.structs[name], g.building[name] = true, true
	defer delete(g.building, name)
	var b strings.Builder
	fields := scope{}
	b.WriteString("type " + name + " struct {\n")
	for _, p := range ps {
		if !jsontag.Valid(p.name) || strings.ContainsAny(p.name, "`\"\\") {
			fmt.Fprintf(&b, "\t// %q cannot be a Go struct tag: left out.\n", p.name)
			continue
		}
		s, err := parseSchema(p.raw)
		if err != nil {
			return "", fmt.Errorf("%s.%s: %w", name, p.name, err)
		}
		field := fields.take(exported(p.name))
		t, err := g.goType(s, name+field)
		if err != nil {
			return "", err
		}
		req := contains(required, p.name)
		if g.structs[t] && (!req || g.building[t]) {
			t = "*" + t
		}
		tag := p.name
		if !req {
			tag += ",omitempty"
		}
		writeComment(&b, "\t", s.Description)
		fmt.Fprintf(&b, "\t%s %s `json:%q`\n", field, t, tag)
	}
	b.WriteString("}\n")
	g.addDecl(name, b.String())
	return name, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// addDecl adds the declaration of type name, with its doc comment.
func (g *generator) addDecl(name, code string) {
	var b strings.Builder
	doc := g.docs[name]
	if doc == "" {
		doc = name + " is a type of the document."
		if key := g.keyOf(name); key != "" {
			doc = name + " is the schema " + strconv.Quote(key) + "."
		}
	} else if key := g.keyOf(name); key != "" {
		doc = name + " is the schema " + strconv.Quote(key) + ": " + doc
	} else {
		doc = name + ": " + doc
	}
	writeComment(&b, "", doc)
	b.WriteString(code)
	g.decls = append(g.decls, b.String())
}

func (g *generator) keyOf(name string) string {
	for k, n := range g.comps {
		if n == name {
			return k
		}
	}
	return ""
}

// writeComment writes text as // lines, wrapped at about 100 columns.
func writeComment(b *strings.Builder, indent, text string) {
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r", ""))
	if text == "" {
		return
	}
	for _, line := range strings.Split(text, "\n") {
		for _, part := range wrap(line, 100-len(indent)-3) {
			b.WriteString(strings.TrimRight(indent+"// "+part, " ") + "\n")
		}
	}
}

// wrap splits line at spaces into parts of at most width bytes where it
// can.
func wrap(line string, width int) []string {
	var out []string
	for len(line) > width {
		i := strings.LastIndexByte(line[:width], ' ')
		if i <= 0 {
			if i = strings.IndexByte(line, ' '); i < 0 {
				break
			}
		}
		out = append(out, line[:i])
		line = strings.TrimLeft(line[i:], " ")
	}
	return append(out, line)
}
