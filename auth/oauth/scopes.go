package oauth

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jetrpc/jetrpc/auth"
)

// ScopeRules say which scopes each feature (a tool, resource or prompt,
// by name) needs. A nil *ScopeRules needs no scope for anything. It is
// immutable once parsed and safe for concurrent use; Allowed and Needed
// allocate nothing.
type ScopeRules struct {
	exact  map[string]*scopeRule
	prefix []*scopeRule // by pattern length, longest first
	all    []string
}

type scopeRule struct {
	pattern string // the name, or the prefix without its '*'
	scopes  []string
	joined  string // scopes, space-separated
}

// ParseScopeRules reads rules of the form
//
//	NAME=SCOPE [SCOPE...]
//
// as "jetrpc serve --mcp-scope" gives them: the feature NAME needs every
// SCOPE (space-separated). NAME is split from the scopes at the last '=',
// so a resource URI with a query may be a NAME. NAME may end with '*' to
// match every name with that prefix ("admin_*"); "*" alone matches every
// name. The most specific rule decides: an exact name, else the longest
// prefix; a name no rule matches needs no scope. Rules for the same NAME
// add up.
func ParseScopeRules(specs []string) (*ScopeRules, error) {
	s := &ScopeRules{exact: map[string]*scopeRule{}}
	byPrefix := map[string]*scopeRule{}
	seen := map[string]bool{}
	for _, spec := range specs {
		i := strings.LastIndexByte(spec, '=')
		if i <= 0 {
			return nil, fmt.Errorf("oauth: scope rule %q: want NAME=SCOPE", spec)
		}
		name, scopes := spec[:i], strings.Fields(spec[i+1:])
		if len(scopes) == 0 {
			return nil, fmt.Errorf("oauth: scope rule %q names no scope", spec)
		}
		m, key := s.exact, name
		if p, ok := strings.CutSuffix(name, "*"); ok {
			m, key = byPrefix, p
		}
		if strings.Contains(key, "*") {
			return nil, fmt.Errorf("oauth: scope rule %q: '*' may only end a name", spec)
		}
		r := m[key]
		if r == nil {
			r = &scopeRule{pattern: key}
			m[key] = r
		}
		for _, sc := range scopes {
			if !validScope(sc) {
				return nil, fmt.Errorf("oauth: scope rule %q: %q is not a scope (RFC 6749 §3.3)", spec, sc)
			}
			if !contains(r.scopes, sc) {
				r.scopes = append(r.scopes, sc)
			}
			if !seen[sc] {
				seen[sc] = true
				s.all = append(s.all, sc)
			}
		}
		r.joined = strings.Join(r.scopes, " ")
	}
	for _, r := range byPrefix {
		s.prefix = append(s.prefix, r)
	}
	sort.Slice(s.prefix, func(i, j int) bool { return len(s.prefix[i].pattern) > len(s.prefix[j].pattern) })
	return s, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// rule returns the rule that decides for name, or nil.
func (s *ScopeRules) rule(name string) *scopeRule {
	if s == nil {
		return nil
	}
	if r := s.exact[name]; r != nil {
		return r
	}
	for _, r := range s.prefix {
		if strings.HasPrefix(name, r.pattern) {
			return r
		}
	}
	return nil
}

// Needed returns the scopes the feature name needs, space-separated
// (the scope of a 403 challenge), or "" when it needs none.
func (s *ScopeRules) Needed(name string) string {
	if r := s.rule(name); r != nil {
		return r.joined
	}
	return ""
}

// Allowed reports whether id may use the feature name: whether its token
// ([TokenOf]) carries every scope name needs. A feature that needs no
// scope is allowed to every caller, one without an identity included; one
// that needs some is refused to identities that have no token (static
// tokens, certificates).
func (s *ScopeRules) Allowed(id *auth.Identity, name string) bool {
	r := s.rule(name)
	if r == nil {
		return true
	}
	t := TokenOf(id)
	for _, sc := range r.scopes {
		if !t.HasScope(sc) {
			return false
		}
	}
	return true
}

// Scopes returns every scope the rules name, in the order they first
// appear: a resource's ScopesSupported. The caller must not change it.
func (s *ScopeRules) Scopes() []string {
	if s == nil {
		return nil
	}
	return s.all
}

// StepUpScope returns the scope a 403 step-up challenge asks for when id
// lacks needed (space-separated): the scopes id's token has, then those
// of needed it does not have. A client re-authorizes with exactly this
// scope, so asking for needed alone would lose what the token could do.
func StepUpScope(id *auth.Identity, needed string) string {
	t := TokenOf(id)
	if t == nil || len(t.Scopes) == 0 {
		return needed
	}
	out := strings.Join(t.Scopes, " ")
	for _, sc := range strings.Fields(needed) {
		if !t.HasScope(sc) {
			out += " " + sc
		}
	}
	return out
}

// Base returns the scopes the rule "*" names (space-separated), which
// every feature without a rule of its own needs: the scope of a 401
// challenge, what a client should ask for first. "" without such a rule.
func (s *ScopeRules) Base() string { return s.Needed("") }
