package cache

import (
	"errors"
	"sort"
	"strings"
	"time"
)

// Rules is the operator's Policy: method names and name prefixes, each
// with a TTL (jetrpc proxy's --cache NAME=TTL). An exact name wins over a
// prefix, and a longer prefix over a shorter one. Every answer to a call
// it allows is kept, null included: the operator declared the method's
// answers cacheable. The zero value allows nothing.
type Rules struct {
	exact  map[string]time.Duration
	prefix []prefixRule // longest first
}

type prefixRule struct {
	prefix string
	ttl    time.Duration
}

var _ Policy = (*Rules)(nil)

// ParseRules reads rules of the form NAME=TTL, where NAME is a method name
// or a prefix ending in '*' (eth_get*) and TTL a positive duration
// (time.ParseDuration: 30s, 5m, 1h). An error names the rule at fault.
func ParseRules(specs []string) (*Rules, error) {
	r := &Rules{exact: make(map[string]time.Duration)}
	seen := make(map[string]bool)
	for _, spec := range specs {
		name, ttlText, ok := strings.Cut(spec, "=")
		name = strings.TrimSpace(name)
		if !ok {
			return nil, ruleErr(spec, "want NAME=TTL")
		}
		if seen[name] {
			return nil, ruleErr(spec, "a second rule for "+name)
		}
		seen[name] = true
		ttl, err := time.ParseDuration(strings.TrimSpace(ttlText))
		if err != nil {
			return nil, ruleErr(spec, "bad TTL "+quote(ttlText)+" (want a duration such as 30s or 5m)")
		}
		if ttl <= 0 {
			return nil, ruleErr(spec, "the TTL must be positive")
		}
		prefix, isPrefix := strings.CutSuffix(name, "*")
		switch {
		case prefix == "":
			return nil, ruleErr(spec, "want a method name or a prefix such as eth_get*")
		case strings.ContainsAny(prefix, "* \t"):
			return nil, ruleErr(spec, "a name holds no spaces, and '*' only at its end")
		case isPrefix:
			r.prefix = append(r.prefix, prefixRule{prefix, ttl})
		default:
			r.exact[name] = ttl
		}
	}
	sort.SliceStable(r.prefix, func(i, j int) bool { return len(r.prefix[i].prefix) > len(r.prefix[j].prefix) })
	return r, nil
}

func ruleErr(spec, why string) error {
	return errors.New("cache rule " + quote(spec) + ": " + why)
}

func quote(s string) string { return `"` + s + `"` }

// TTL reports the TTL of the rule that matches method.
func (r *Rules) TTL(method, _ []byte) (time.Duration, bool) {
	if ttl, ok := r.exact[string(method)]; ok {
		return ttl, true
	}
	for _, p := range r.prefix {
		if len(method) >= len(p.prefix) && string(method[:len(p.prefix)]) == p.prefix {
			return p.ttl, true
		}
	}
	return 0, false
}

// Keep keeps every answer.
func (r *Rules) Keep(_, _, _ []byte) bool { return true }

// Chain asks its policies in turn: the first whose TTL allows a call
// decides it, TTL and Keep alike. jetrpc proxy puts the operator's Rules
// before the ethereum policy, so a rule overrides it.
type Chain []Policy

var _ Policy = Chain(nil)

// TTL reports the TTL of the first policy that allows the call.
func (c Chain) TTL(method, params []byte) (time.Duration, bool) {
	for _, p := range c {
		if ttl, ok := p.TTL(method, params); ok {
			return ttl, true
		}
	}
	return 0, false
}

// Keep asks the policy that allowed the call.
func (c Chain) Keep(method, params, result []byte) bool {
	for _, p := range c {
		if _, ok := p.TTL(method, params); ok {
			return p.Keep(method, params, result)
		}
	}
	return false
}
