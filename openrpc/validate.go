package openrpc

// NOTE: the optional params check (Options.ValidateParams). At Freeze each
// method's params are compiled from its document: a node per schema, and
// one per component, which $refs resolve to when a call is checked (so
// recursive types work; calls only read the compiled nodes). A
// call's params are then walked in place with decode.Iter (the scanner has
// validated them); the first violation is -32602 with error.data
// {"pointer": JSON pointer into the params, "error": what is wrong}. The
// keywords checked are those Schemas writes and hand-written schemas
// commonly use; others (format, pattern, ...) are accepted as they come.

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
)

// kinds of JSON values, as bits.
const (
	kNull = 1 << iota
	kBool
	kInteger
	kNumber // any number, integers included
	kString
	kArray
	kObject
)

var kindNames = map[string]uint8{"null": kNull, "boolean": kBool, "integer": kInteger, "number": kNumber,
	"string": kString, "array": kArray, "object": kObject}

// node is one compiled schema.
type node struct {
	kinds              uint8 // 0: any
	ref                string
	c                  *compiler
	props              map[string]*node
	required           []string
	items              *node
	tuple              []*node
	additional         *node
	noAdditional       bool
	minItems, maxItems int // -1: none
	minLength          int
	min, max           *float64
	enum               []string // compact JSON
	allOf, anyOf       []*node
}

// compiler compiles schemas and resolves $refs to the components.
type compiler struct {
	defs  map[string]json.RawMessage
	nodes map[string]*node
}

func (c *compiler) compile(raw json.RawMessage) *node {
	n := &node{c: c, minItems: -1, maxItems: -1}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil { // true, or not an object: anything goes
		return n
	}
	if ref, ok := m["$ref"]; ok {
		_ = json.Unmarshal(ref, &n.ref)
		return n
	}
	n.kinds = kindsOf(m["type"])
	n.props = map[string]*node{}
	if ps := m["properties"]; ps != nil {
		var props map[string]json.RawMessage
		_ = json.Unmarshal(ps, &props)
		for k, v := range props {
			n.props[k] = c.compile(v)
		}
	}
	_ = json.Unmarshal(m["required"], &n.required)
	if items := m["items"]; len(items) > 0 && items[0] == '[' {
		var tuple []json.RawMessage
		_ = json.Unmarshal(items, &tuple)
		for _, t := range tuple {
			n.tuple = append(n.tuple, c.compile(t))
		}
	} else if items != nil {
		n.items = c.compile(items)
	}
	if ap := m["additionalProperties"]; string(ap) == "false" {
		n.noAdditional = true
	} else if ap != nil {
		n.additional = c.compile(ap)
	}
	n.minItems, n.maxItems, n.minLength = intKeyword(m["minItems"]), intKeyword(m["maxItems"]), max(intKeyword(m["minLength"]), 0)
	n.min, n.max = floatKeyword(m["minimum"]), floatKeyword(m["maximum"])
	var enum []json.RawMessage
	_ = json.Unmarshal(m["enum"], &enum)
	for _, v := range enum {
		n.enum = append(n.enum, compact(v))
	}
	n.allOf, n.anyOf = c.list(m["allOf"]), append(c.list(m["anyOf"]), c.list(m["oneOf"])...)
	return n
}

func (c *compiler) list(raw json.RawMessage) []*node {
	var rs []json.RawMessage
	_ = json.Unmarshal(raw, &rs)
	var out []*node
	for _, r := range rs {
		out = append(out, c.compile(r))
	}
	return out
}

func kindsOf(raw json.RawMessage) uint8 {
	var names []string
	if json.Unmarshal(raw, &names) != nil {
		var one string
		_ = json.Unmarshal(raw, &one)
		names = []string{one}
	}
	var k uint8
	for _, n := range names {
		k |= kindNames[n]
	}
	return k
}

func intKeyword(raw json.RawMessage) int {
	v, err := strconv.Atoi(string(raw))
	if err != nil {
		return -1
	}
	return v
}

func floatKeyword(raw json.RawMessage) *float64 {
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return nil
	}
	return &v
}

func compact(v []byte) string {
	var b strings.Builder
	var x any
	if json.Unmarshal(v, &x) == nil {
		out, _ := json.Marshal(x)
		b.Write(out)
	}
	return b.String()
}

// resolve follows n's $ref (nil for a reference outside the components:
// anything goes).
func (n *node) resolve() *node {
	for n != nil && n.ref != "" {
		key, ok := strings.CutPrefix(n.ref, RefPrefix)
		if !ok {
			return nil
		}
		n = n.c.nodes[key] // all compiled up front: calls only read
	}
	return n
}

// violation is what check finds: where and what.
type violation struct {
	pointer, problem string
}

// path is where a value lies in the params, built on the stack and
// written out as a JSON pointer only for a violation.
type path struct {
	up    *path
	key   string // a member name, or
	index int    // an element index (key empty)
}

func (p *path) pointer() string {
	if p == nil {
		return ""
	}
	if p.key == "" {
		return p.up.pointer() + "/" + strconv.Itoa(p.index)
	}
	return p.up.pointer() + "/" + pointerEscaper.Replace(p.key)
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

func bad(at *path, problem string) *violation { return &violation{at.pointer(), problem} }

// check returns the first violation of v (a validated JSON value) at ptr.
func (n *node) check(v []byte, ptr *path) *violation {
	if n = n.resolve(); n == nil {
		return nil
	}
	k := kindOf(v)
	if n.kinds != 0 && n.kinds&k == 0 && !(k == kInteger && n.kinds&kNumber != 0) {
		return bad(ptr, "want "+kindList(n.kinds))
	}
	if len(n.enum) > 0 && !contains(n.enum, compact(v)) {
		return bad(ptr, "not one of the allowed values")
	}
	for _, s := range n.allOf {
		if b := s.check(v, ptr); b != nil {
			return b
		}
	}
	if len(n.anyOf) > 0 && !n.anyMatches(v, ptr) {
		return bad(ptr, "matches none of the alternatives")
	}
	switch k {
	case kInteger, kNumber:
		return n.checkNumber(v, ptr)
	case kString:
		if s, err := decode.AppendUnquote(nil, v); err == nil && len([]rune(string(s))) < n.minLength {
			return bad(ptr, "shorter than "+strconv.Itoa(n.minLength))
		}
	case kArray:
		return n.checkArray(v, ptr)
	case kObject:
		return n.checkObject(v, ptr)
	}
	return nil
}

func (n *node) anyMatches(v []byte, ptr *path) bool {
	for _, s := range n.anyOf {
		if s.check(v, ptr) == nil {
			return true
		}
	}
	return false
}

func (n *node) checkNumber(v []byte, ptr *path) *violation {
	f, err := decode.ParseFloat(v)
	switch {
	case err != nil:
		return bad(ptr, "not a number")
	case n.kinds == kInteger && f != math.Trunc(f):
		return bad(ptr, "want integer")
	case n.min != nil && f < *n.min:
		return bad(ptr, "less than the minimum "+strconv.FormatFloat(*n.min, 'g', -1, 64))
	case n.max != nil && f > *n.max:
		return bad(ptr, "more than the maximum "+strconv.FormatFloat(*n.max, 'g', -1, 64))
	}
	return nil
}

func (n *node) checkArray(v []byte, ptr *path) *violation {
	var it decode.Iter
	it.Reset(v)
	i := 0
	for ; it.Next(); i++ {
		s := n.items
		if i < len(n.tuple) {
			s = n.tuple[i]
		}
		if s == nil {
			continue
		}
		if b := s.check(it.Value(), &path{up: ptr, index: i}); b != nil {
			return b
		}
	}
	if n.minItems >= 0 && i < n.minItems || n.maxItems >= 0 && i > n.maxItems {
		return bad(ptr, strconv.Itoa(i)+" items: want "+strconv.Itoa(max(n.minItems, 0))+" to "+strconv.Itoa(n.maxItems))
	}
	return nil
}

func (n *node) checkObject(v []byte, ptr *path) *violation {
	var it decode.Iter
	it.Reset(v)
	for it.Next() {
		key := unquoteKey(it.Key())
		s, ok := n.props[key]
		switch {
		case !ok && n.noAdditional:
			return bad(&path{up: ptr, key: key}, "member not allowed")
		case !ok:
			s = n.additional
		}
		if s == nil {
			continue
		}
		if b := s.check(it.Value(), &path{up: ptr, key: key}); b != nil {
			return b
		}
	}
	for _, r := range n.required {
		if !hasMember(v, r) {
			return bad(&path{up: ptr, key: r}, "required member missing")
		}
	}
	return nil
}

// hasMember reports whether object v has a member named name.
func hasMember(v []byte, name string) bool {
	var it decode.Iter
	it.Reset(v)
	for it.Next() {
		if decode.KeyEquals(it.Key(), name) {
			return true
		}
	}
	return false
}

// unquoteKey returns a member name unescaped (the common unescaped name
// without a copy: it is only looked up, never kept).
func unquoteKey(raw []byte) string {
	if !bytes.ContainsRune(raw, '\\') {
		return bytesconv.B2S(raw)
	}
	k, err := decode.AppendUnquote(nil, append(append([]byte{'"'}, raw...), '"'))
	if err != nil {
		return string(raw)
	}
	return string(k)
}

func kindOf(v []byte) uint8 {
	switch v[0] {
	case 'n':
		return kNull
	case 't', 'f':
		return kBool
	case '"':
		return kString
	case '[':
		return kArray
	case '{':
		return kObject
	}
	if strings.ContainsAny(string(v), ".eE") {
		if f, err := decode.ParseFloat(v); err == nil && f == math.Trunc(f) {
			return kInteger
		}
		return kNumber
	}
	return kInteger
}

func kindList(k uint8) string {
	var names []string
	for _, n := range []string{"null", "boolean", "integer", "number", "string", "array", "object"} {
		if k&kindNames[n] != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, " or ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// paramsCheck checks the params of one method against its descriptors.
type paramsCheck struct {
	names     []string
	nodes     []*node
	required  []bool
	variadic  bool
	structure string
}

func newParamsCheck(c *compiler, m *Method) *paramsCheck {
	pc := &paramsCheck{structure: m.ParamStructure}
	for _, p := range m.Params {
		pc.names = append(pc.names, p.Name)
		pc.nodes = append(pc.nodes, c.compile(p.Schema))
		pc.required = append(pc.required, p.Required)
		pc.variadic = p.Variadic
	}
	return pc
}

// check returns the first violation of params (absent, or a validated
// array or object).
func (pc *paramsCheck) check(params []byte) *violation {
	var it decode.Iter
	if !it.Reset(params) {
		if pc.structure == string(ByName) {
			return pc.missingMember([]byte("{}"))
		}
		return pc.missing(0)
	}
	if it.IsObject() {
		if pc.structure == string(ByPosition) {
			return &violation{"", "want params by position (an array)"}
		}
		for it.Next() {
			key := unquoteKey(it.Key())
			if i := indexOfName(pc.names, key); i >= 0 {
				if b := pc.nodes[i].check(it.Value(), &path{key: key}); b != nil {
					return b
				}
			}
		}
		return pc.missingMember(params)
	}
	if pc.structure == string(ByName) {
		return &violation{"", "want params by name (an object)"}
	}
	i := 0
	for ; it.Next(); i++ {
		j := i
		switch {
		case j >= len(pc.nodes) && pc.variadic:
			j = len(pc.nodes) - 1
		case j >= len(pc.nodes):
			return bad(&path{index: i}, "too many params: want at most "+strconv.Itoa(len(pc.nodes)))
		}
		if b := pc.nodes[j].check(it.Value(), &path{index: i}); b != nil {
			return b
		}
	}
	return pc.missing(i)
}

// missing reports the first required positional param from from on.
func (pc *paramsCheck) missing(from int) *violation {
	for i := from; i < len(pc.names); i++ {
		if pc.required[i] && !(pc.variadic && i == len(pc.names)-1) {
			return bad(&path{index: i}, "required param "+strconv.Quote(pc.names[i])+" missing")
		}
	}
	return nil
}

// missingMember reports the first required param that object params lacks.
func (pc *paramsCheck) missingMember(params []byte) *violation {
	for i, name := range pc.names {
		if pc.required[i] && !hasMember(params, name) {
			return bad(&path{key: name}, "required param "+strconv.Quote(name)+" missing")
		}
	}
	return nil
}

func indexOfName(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// err is the -32602 of a violation.
func (v *violation) err() error {
	data := append([]byte(`{"pointer":`), encode.AppendString(nil, v.pointer)...)
	data = append(append(append(data, `,"error":`...), encode.AppendString(nil, v.problem)...), '}')
	return dispatch.NewError(encode.CodeInvalidParams, "", data)
}

// compileChecks compiles the params check of every method of doc.
func compileChecks(doc *Document) map[string]*paramsCheck {
	c := &compiler{nodes: map[string]*node{}}
	if doc.Components != nil {
		c.defs = doc.Components.Schemas
	}
	for key, raw := range c.defs {
		c.nodes[key] = c.compile(raw)
	}
	checks := make(map[string]*paramsCheck, len(doc.Methods))
	for i := range doc.Methods {
		checks[doc.Methods[i].Name] = newParamsCheck(c, &doc.Methods[i])
	}
	return checks
}

// validate is the middleware of Options.ValidateParams.
func (s *Service) validate(name string, next dispatch.Handler) dispatch.Handler {
	pc := s.checks[name]
	if pc == nil {
		return next
	}
	return dispatch.HandlerFunc(func(ctx context.Context, params, dst []byte) ([]byte, error) {
		if b := pc.check(params); b != nil {
			return dst, b.err()
		}
		return next.ServeRPC(ctx, params, dst)
	})
}
