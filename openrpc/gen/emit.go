package gen

import (
	"fmt"
	"strconv"
	"strings"
)

// writeClient writes the Client type and its methods.
func (g *generator) writeClient(b *strings.Builder) {
	b.WriteString(`// Client calls the methods of the service through a client.Client, over
// any of its transports (TCP, HTTP, WebSocket, stdio).
type Client struct{ c *client.Client }

// NewClient returns a Client that calls through c.
func NewClient(c *client.Client) *Client { return &Client{c: c} }

`)
	for _, m := range g.methods {
		m.comment(b, "", m.name+" calls "+strconv.Quote(m.rpc))
		fmt.Fprintf(b, "func (c *Client) %s%s {\n", m.name, m.signature())
		params := m.clientParams(b)
		switch {
		case m.notification:
			fmt.Fprintf(b, "\treturn c.c.Notify(ctx, %q, %s)\n", m.rpc, params)
		case m.nullResult:
			fmt.Fprintf(b, "\treturn c.c.Call(ctx, %q, %s, nil)\n", m.rpc, params)
		default:
			fmt.Fprintf(b, "\tvar r %s\n\terr := c.c.Call(ctx, %q, %s, &r)\n\treturn r, err\n", m.result, m.rpc, params)
		}
		b.WriteString("}\n\n")
	}
}

// clientParams writes what builds the params and returns the expression
// that passes them: by name a struct, by position an array (of the one
// type when all params share it), a variadic param's slice as it is.
func (m *method) clientParams(b *strings.Builder) string {
	switch {
	case len(m.params) == 0:
		return "nil"
	case m.variadic:
		v := m.params[0].local
		fmt.Fprintf(b, "\tif %s == nil {\n\t\t%s = []%s{} // params are always an array\n\t}\n", v, v, m.elemType())
		return "&" + v
	case m.structure == "by-position":
		elem := m.params[0].typ
		var vals []string
		for _, p := range m.params {
			if p.typ != elem {
				elem = "any"
			}
			vals = append(vals, p.local)
		}
		fmt.Fprintf(b, "\tp := [...]%s{%s}\n", elem, strings.Join(vals, ", "))
		return "&p"
	}
	var fields []string
	for _, p := range m.params {
		fields = append(fields, p.field+": "+p.local)
	}
	fmt.Fprintf(b, "\tp := %s{%s}\n", m.paramsType, strings.Join(fields, ", "))
	return "&p"
}

// writeServer writes the Server interface, Register and Docs. Methods
// with reserved "rpc." names are left out: an engine cannot register
// them.
func (g *generator) writeServer(b *strings.Builder) {
	b.WriteString("// Server is the service's methods, for Register to serve.\ntype Server interface {\n")
	for _, m := range g.served() {
		m.comment(b, "\t", m.name+" serves "+strconv.Quote(m.rpc))
		fmt.Fprintf(b, "\t%s%s\n", m.name, m.signature())
	}
	b.WriteString("}\n\n")
	b.WriteString(`// Register registers the methods of srv on e as dispatch.Typed handlers
// (Docs has their summaries and descriptions, for package openrpc).
func Register(e *dispatch.Engine, srv Server) error {
	for _, m := range []dispatch.Method{
`)
	for _, m := range g.served() {
		fmt.Fprintf(b, "\t\t{Name: %q, Handler: %s},\n", m.rpc, m.handler())
	}
	b.WriteString(`	} {
		if err := e.RegisterMethod(m); err != nil {
			return err
		}
	}
	return nil
}

// Docs returns the summaries and descriptions of the document's methods by
// name, for openrpc.Options.Methods (a map of the caller's own).
func Docs() map[string]openrpc.MethodDoc {
	return map[string]openrpc.MethodDoc{
`)
	for _, m := range g.served() {
		var fields []string
		if m.summary != "" {
			fields = append(fields, fmt.Sprintf("Summary: %q", m.summary))
		}
		if m.description != "" {
			fields = append(fields, fmt.Sprintf("Description: %q", m.description))
		}
		if m.deprecated {
			fields = append(fields, "Deprecated: true")
		}
		if s := structureConst[m.structure]; s != "" {
			fields = append(fields, "ParamStructure: "+s)
		}
		if len(fields) > 0 {
			fmt.Fprintf(b, "\t\t%q: {%s},\n", m.rpc, strings.Join(fields, ", "))
		}
	}
	b.WriteString("\t}\n}\n")
}

var structureConst = map[string]string{"by-name": "openrpc.ByName", "by-position": "openrpc.ByPosition", "either": "openrpc.Either"}

func (g *generator) served() []*method {
	var out []*method
	for _, m := range g.methods {
		if !strings.HasPrefix(m.rpc, "rpc.") {
			out = append(out, m)
		}
	}
	return out
}

// handler is the dispatch.Typed adapter of m.
func (m *method) handler() string {
	in, args := "_ struct{}", ""
	switch {
	case m.variadic:
		in, args = "p []"+m.elemType(), ", p..."
	case len(m.params) > 0:
		in = "p " + m.paramsType
		for _, p := range m.params {
			args += ", p." + p.field
		}
	}
	call := "srv." + m.name + "(ctx" + args + ")"
	if m.result == "" {
		return fmt.Sprintf("dispatch.Typed(func(ctx context.Context, %s) (any, error) { return nil, %s })", in, call)
	}
	return fmt.Sprintf("dispatch.Typed(func(ctx context.Context, %s) (%s, error) { return %s })", in, m.result, call)
}
