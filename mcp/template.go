package mcp

import (
	"context"
	"strings"

	"github.com/jetrpc/jetrpc/encode"
)

// ResourceTemplate is a family of resources whose URIs fit URITemplate, a
// level-1 RFC 6570 template such as test://items/{id}/data (each {name}
// matches one or more characters other than '/'). resources/read of a URI
// that no Resource has and that fits the template is answered by Read,
// with the template's variables.
type ResourceTemplate struct {
	URITemplate, Name, Title, Description, MIMEType string
	Read                                            func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error)
}

// AddResourceTemplate adds t (see AddTool for the errors).
func (s *Server) AddResourceTemplate(t *ResourceTemplate) error {
	if t == nil || t.URITemplate == "" || t.Name == "" || t.Read == nil {
		return ErrNoName
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen {
		return ErrFrozen
	}
	for _, o := range s.ext.templates {
		if o.URITemplate == t.URITemplate {
			return ErrDuplicate
		}
	}
	s.ext.templates = append(s.ext.templates, t)
	return nil
}

// Match returns the template's variables for uri, and whether uri fits.
func (t *ResourceTemplate) Match(uri string) (map[string]string, bool) {
	tpl := t.URITemplate
	var vars map[string]string
	for tpl != "" {
		open := strings.IndexByte(tpl, '{')
		if open < 0 {
			return vars, uri == tpl
		}
		if !strings.HasPrefix(uri, tpl[:open]) {
			return nil, false
		}
		uri, tpl = uri[len(tpl[:open]):], tpl[open+1:]
		end := strings.IndexByte(tpl, '}')
		if end < 0 {
			return nil, false
		}
		name := tpl[:end]
		tpl = tpl[end+1:]
		n := strings.IndexByte(uri, '/')
		if n < 0 {
			n = len(uri)
		}
		if tpl != "" && tpl[0] != '/' { // a literal other than '/' ends the value
			if k := strings.Index(uri[:n], tpl[:literalLen(tpl)]); k >= 0 {
				n = k
			}
		}
		if n == 0 {
			return nil, false
		}
		if vars == nil {
			vars = map[string]string{}
		}
		vars[name], uri = uri[:n], uri[n:]
	}
	return vars, uri == ""
}

// literalLen is the length of the literal text at the start of tpl.
func literalLen(tpl string) int {
	if n := strings.IndexAny(tpl, "{/"); n >= 0 {
		return n
	}
	return len(tpl)
}

// templateRead returns the Read of the first template uri fits, bound to
// its variables; nil when none does.
func (s *Server) templateRead(uri string) func(ctx context.Context, uri string) ([]ResourceContents, error) {
	for _, t := range s.ext.templates {
		if vars, ok := t.Match(uri); ok {
			return func(ctx context.Context, uri string) ([]ResourceContents, error) { return t.Read(ctx, uri, vars) }
		}
	}
	return nil
}

func (t *ResourceTemplate) appendDesc(dst []byte) []byte {
	dst = encode.AppendString(append(dst, `{"uriTemplate":`...), t.URITemplate)
	dst = encode.AppendString(append(dst, `,"name":`...), t.Name)
	dst = appendOpt(dst, "title", t.Title)
	dst = appendOpt(dst, "description", t.Description)
	dst = appendOpt(dst, "mimeType", t.MIMEType)
	return append(dst, '}')
}

func (s *Server) templatesList(ctx context.Context, params, dst []byte) ([]byte, error) {
	return s.list(ctx, params, dst, &s.freeze().ext.templates, listUnfiltered) // a template is judged by the URI read
}
