package gen

import (
	"fmt"
	"strings"

	"github.com/jetrpc/jetrpc/internal/jsontag"
	"github.com/jetrpc/jetrpc/openrpc"
)

// method is one RPC method as the generated code sees it.
type method struct {
	rpc, name    string // the RPC name, the Go method name
	summary      string
	description  string
	doc          string // summary and description
	deprecated   bool
	structure    string
	params       []param
	variadic     bool   // the single param repeats
	paramsType   string // the struct the server binds (and a by-name client sends)
	result       string // Go type; "" with noResult or nullResult
	notification bool   // no result: the client notifies
	nullResult   bool   // a null result: only the error matters
}

type param struct {
	json, local, field, typ string
	required                bool
}

func (g *generator) method(om *openrpc.Method) (*method, error) {
	if om.Ref != "" {
		return nil, fmt.Errorf("method $ref %q: not supported", om.Ref)
	}
	m := &method{rpc: om.Name, name: g.pkg.take(exported(om.Name)), deprecated: om.Deprecated, structure: om.ParamStructure}
	m.summary, m.description = om.Summary, om.Description
	m.doc = strings.TrimSpace(om.Summary + "\n\n" + om.Description)
	locals, fields := localScope(), scope{}
	for i := range om.Params {
		cd, err := g.descriptor(&om.Params[i])
		if err != nil {
			return nil, fmt.Errorf("method %q: %w", om.Name, err)
		}
		if !jsontag.Valid(cd.Name) || strings.ContainsAny(cd.Name, "`\"\\") {
			return nil, fmt.Errorf("method %q: param name %q cannot be a Go struct tag", om.Name, cd.Name)
		}
		p := param{json: cd.Name, local: locals.take(unexported(cd.Name)), field: fields.take(exported(cd.Name)), required: cd.Required}
		if p.typ, err = g.sub(cd.Schema, m.name+p.field); err != nil {
			return nil, fmt.Errorf("method %q: param %q: %w", om.Name, cd.Name, err)
		}
		m.params = append(m.params, p)
		m.variadic = cd.Variadic && len(om.Params) == 1
	}
	if len(m.params) > 0 && !m.variadic {
		m.paramsType = g.pkg.take(unexported(m.name) + "Params")
		g.addParams(m)
	}
	return m, g.methodResult(m, om)
}

func (g *generator) methodResult(m *method, om *openrpc.Method) error {
	if om.Result == nil {
		m.notification = true
		return nil
	}
	cd, err := g.descriptor(om.Result)
	if err != nil {
		return fmt.Errorf("method %q: result: %w", om.Name, err)
	}
	s, err := parseSchema(cd.Schema)
	if err != nil {
		return fmt.Errorf("method %q: result: %w", om.Name, err)
	}
	if len(s.Type) == 1 && s.Type[0] == "null" {
		m.nullResult = true
		return nil
	}
	m.result, err = g.goType(s, m.name+"Result")
	return err
}

// descriptor resolves a content descriptor's $ref.
func (g *generator) descriptor(cd *openrpc.ContentDescriptor) (*openrpc.ContentDescriptor, error) {
	if cd.Ref == "" {
		return cd, nil
	}
	key, ok := strings.CutPrefix(cd.Ref, "#/components/contentDescriptors/")
	if c := g.doc.Components; ok && c != nil {
		if found, ok := c.ContentDescriptors[key]; ok && found.Ref == "" {
			return &found, nil
		}
	}
	return nil, fmt.Errorf("content descriptor $ref %q: not found", cd.Ref)
}

// addParams declares the params struct of m: its members in position
// order, so the binder takes them by name and by position.
func (g *generator) addParams(m *method) {
	var b strings.Builder
	fmt.Fprintf(&b, "// %s are the params of %q.\ntype %s struct {\n", m.paramsType, m.rpc, m.paramsType)
	for _, p := range m.params {
		tag := p.json
		if !p.required {
			tag += ",omitempty"
		}
		fmt.Fprintf(&b, "\t%s %s `json:%q`\n", p.field, p.typ, tag)
	}
	b.WriteString("}\n")
	g.decls = append(g.decls, b.String())
}

// signature is the method's Go signature after its name.
func (m *method) signature() string {
	args := []string{"ctx context.Context"}
	for _, p := range m.params {
		t := p.typ
		if m.variadic {
			t = "..." + t
		}
		args = append(args, p.local+" "+t)
	}
	ret := "error"
	if m.result != "" {
		ret = "(" + m.result + ", error)"
	}
	return "(" + strings.Join(args, ", ") + ") " + ret
}

// elemType is a variadic param's element type.
func (m *method) elemType() string { return m.params[0].typ }

func (m *method) comment(b *strings.Builder, indent, lead string) {
	doc := lead
	if m.doc != "" {
		doc += ": " + m.doc
	}
	writeComment(b, indent, doc)
	if m.deprecated {
		b.WriteString(indent + "//\n")
		writeComment(b, indent, "Deprecated: the document marks it deprecated.")
	}
}
