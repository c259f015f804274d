package mcp

// NOTE: Options.Access, who may see and use which tool, resource and
// prompt. The lists (tools/list, resources/list, prompts/list) are built
// once; a caller allowed everything in one gets those bytes, anyone else
// a list built for it, without what it may not use. tools/call,
// resources/read and prompts/get of something refused are -32007
// Forbidden here; package mcphttp refuses them earlier, with HTTP 403 and
// the step-up challenge (Refused). The caller's identity is the one its
// transport gives its call (mcphttp: Options.Identity), else the one of
// its connection's context (auth.IdentityOf).

import (
	"context"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// Access decides which tools, prompts (by name) and resources (by URI) a
// caller may see and use. *oauth.ScopeRules is one: a feature needs the
// scopes its rule names. Its methods are called for every list and call
// and must not allocate in the common case.
type Access interface {
	// Allowed reports whether id (nil: the caller has none) may use the
	// feature name.
	Allowed(id *auth.Identity, name string) bool
	// Needed says what a caller needs to use name (the scopes of a step-up
	// challenge, space-separated), "" when nothing.
	Needed(name string) string
}

// forbidden is the error of a call of a feature Access refuses.
func forbidden(name string, needed string) error {
	data := encode.AppendString([]byte(`{"name":`), name)
	if needed != "" {
		data = encode.AppendString(append(data, `,"scope":`...), needed)
	}
	return dispatch.NewError(encode.CodeForbidden, "Forbidden", append(data, '}'))
}

// allowed reports whether the caller of ctx may use name.
func (s *Server) allowed(ctx context.Context, name string) bool {
	return s.access == nil || s.access.Allowed(auth.IdentityOf(ctx), name)
}

// Feature kinds of appendAllowed.
const (
	listUnfiltered = iota - 1 // a list Access does not filter
	listTools
	listResources
	listPrompts
)

// appendAllowed appends list kind's result for the caller of ctx: the
// built bytes when it may see everything, else a list of what it may.
func (s *Server) appendAllowed(ctx context.Context, dst []byte, kind int, modern bool, built []byte) []byte {
	id := auth.IdentityOf(ctx)
	n := s.features(kind)
	all := true
	for i := 0; i < n && all; i++ {
		all = s.access.Allowed(id, s.featureName(kind, i))
	}
	if all {
		return append(dst, built...)
	}
	member := [...]string{"tools", "resources", "prompts"}[kind]
	dst = resultStart(dst, modern)
	if modern {
		dst = cacheHints(dst, listTTL, "private")
	}
	dst = append(encode.AppendString(dst, member), ":["...)
	first := true
	for i := range n {
		if !s.access.Allowed(id, s.featureName(kind, i)) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		switch kind {
		case listTools:
			dst = s.tools[i].appendDesc(dst)
		case listResources:
			dst = s.resources[i].appendDesc(dst)
		default:
			dst = s.prompts[i].appendDesc(dst)
		}
	}
	return append(dst, "]}"...)
}

// features returns how many features of kind the server has.
func (s *Server) features(kind int) int {
	switch kind {
	case listTools:
		return len(s.tools)
	case listResources:
		return len(s.resources)
	}
	return len(s.prompts)
}

// featureName returns the name Access judges of feature i of kind (a
// resource's URI).
func (s *Server) featureName(kind, i int) string {
	switch kind {
	case listTools:
		return s.tools[i].Name
	case listResources:
		return s.resources[i].URI
	}
	return s.prompts[i].Name
}

// Refused is seam.Core's: the error of a request for method naming name
// that Access refuses to id, and what id would need. A name the server
// does not know is left to the method to answer.
func (k *core) Refused(id *auth.Identity, method, name []byte) (string, error) {
	a := k.access
	if a == nil {
		return "", nil
	}
	var feature string // the registered string: no allocation
	switch string(method) {
	case "tools/call":
		if t := k.toolIdx[string(name)]; t != nil {
			feature = t.Name
		}
	case "prompts/get":
		if p := k.promptIdx[string(name)]; p != nil {
			feature = p.Name
		}
	case "resources/read":
		if r := k.resIdx[string(name)]; r != nil {
			feature = r.URI
		} else if len(name) > 0 {
			feature = string(name) // a template's URI
		}
	}
	if feature == "" || a.Allowed(id, feature) {
		return "", nil
	}
	needed := a.Needed(feature)
	return needed, forbidden(feature, needed)
}
