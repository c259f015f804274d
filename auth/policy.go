package auth

// NOTE: the authorisation middleware. Rules are compiled once per method
// when the engine freezes its table: each method gets, for every identity
// name the rules mention, whether that name may call it, plus the answer
// for the other identities ("*") and for clients without one (""). A call
// then costs IdentityOf (a walk up the context chain) and one map lookup;
// a method every client may call is not wrapped at all.

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// Rules give each identity, by its Name, the method patterns it may call.
// Two keys are special: "*" holds the patterns of every identity that has
// no rule of its own, "" those of clients without an identity (a transport
// that does not authenticate, such as jetrpc serve's stdio). A client whose
// rule is missing may call nothing.
//
// A pattern is a method name ("eth_call"), a prefix ending in "*"
// ("eth_*"), or "*" for every method; one starting with "!" denies what
// the rest matches ("!admin_*"). The longest pattern that matches a method
// decides, and a denial wins over an allowance as long as itself. So
// {"*", "!admin_*", "admin_peers"} allows everything but the admin_
// methods, except admin_peers.
type Rules map[string][]string

// Authorize returns a middleware that lets a call through only when rules
// allow its method for the caller's identity (IdentityOf). A denied call or
// notification does not reach its handler: a call is answered Forbidden
// (-32007, or the endpoint's code for it: dispatch.Options.Codes), with
// error.data naming the method ("method \"admin_peers\" is not allowed for
// this client"); in a batch, only that member fails. It fails for a
// malformed pattern.
func Authorize(rules Rules) (dispatch.Middleware, error) {
	for name, ps := range rules {
		if err := checkPatterns(ps); err != nil {
			return nil, fmt.Errorf("auth: rules of %q: %v", name, err)
		}
	}
	own := make(Rules, len(rules))
	for name, ps := range rules {
		own[name] = append([]string(nil), ps...)
	}
	return func(method string, next dispatch.Handler) dispatch.Handler {
		return own.guard(method, next)
	}, nil
}

// checkPatterns refuses empty patterns and a "*" anywhere but at the end.
func checkPatterns(ps []string) error {
	for _, p := range ps {
		lit := strings.TrimPrefix(p, "!")
		switch i := strings.IndexByte(lit, '*'); {
		case lit == "":
			return fmt.Errorf("empty method pattern %q", p)
		case i >= 0 && i != len(lit)-1:
			return fmt.Errorf("method pattern %q: '*' may only end a pattern", p)
		}
	}
	return nil
}

// allows reports whether patterns allow method.
func allows(patterns []string, method string) bool {
	best, allow := -1, false
	for _, p := range patterns {
		deny := strings.HasPrefix(p, "!")
		lit := strings.TrimPrefix(p, "!")
		var ok bool
		if prefix, wild := strings.CutSuffix(lit, "*"); wild {
			ok = strings.HasPrefix(method, prefix)
		} else {
			ok = method == lit
		}
		if !ok {
			continue
		}
		if n := len(lit); n > best || (n == best && deny) {
			best, allow = n, !deny
		}
	}
	return allow
}

// guard wraps next with method's decisions, or returns it as it is when
// every client may call method.
func (r Rules) guard(method string, next dispatch.Handler) dispatch.Handler {
	g := &guarded{next: next, allow: make(map[string]bool, len(r))}
	everyone := true
	for name, ps := range r {
		ok := allows(ps, method)
		switch name {
		case "*":
			g.others = ok
		case "":
			g.anonymous = ok
		default:
			g.allow[name] = ok
		}
		everyone = everyone && ok
	}
	_, hasOthers := r["*"]
	_, hasAnon := r[""]
	if everyone && hasOthers && hasAnon {
		return next
	}
	g.err = dispatch.Condition(encode.CodeForbidden,
		encode.AppendString(nil, "method "+strconv.Quote(method)+" is not allowed for this client"))
	return g
}

type guarded struct {
	next      dispatch.Handler
	allow     map[string]bool // by identity name
	others    bool            // identities without a rule of their own
	anonymous bool            // clients without an identity
	err       error           // the answer to a denied call
}

func (g *guarded) ServeRPC(ctx context.Context, params, dst []byte) ([]byte, error) {
	ok := g.anonymous
	if id := IdentityOf(ctx); id != nil {
		var found bool
		if ok, found = g.allow[id.Name]; !found {
			ok = g.others
		}
	}
	if !ok {
		return dst, g.err
	}
	return g.next.ServeRPC(ctx, params, dst)
}
