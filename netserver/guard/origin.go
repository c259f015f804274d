package guard

// NOTE: the Origin check. Browsers send an Origin header with every
// WebSocket upgrade and every cross-origin POST (and fetch of an event
// stream); other clients (go-ethereum, vscode-jsonrpc, Node's ws, curl)
// send none. A page on another site must not reach a server bound to
// localhost or an internal network through its visitor's browser: its
// requests carry its own origin, which the policy refuses with 403.

import (
	"errors"
	"net/url"
	"strings"
)

// OriginPolicy decides which browser origins may use a server: a request
// without an Origin header (not from a browser) is always allowed; one
// with an Origin is allowed when that origin is on the policy's list, or
// when it names the host the request was sent to (its Host header: the
// page was served by this server); anything else, "null" (a sandboxed or
// file: page) included, is refused. The zero value and a nil
// *OriginPolicy allow no listed origin, only the request's own host.
//
// Both HTTP servers apply it (Options.Origins) to every request before
// anything is served (cors.go): WebSocket upgrades, POSTs and event
// streams, documents and routes, answering 403 to a refused origin; an
// allowed one gets CORS headers. It is safe for concurrent use; other
// endpoints call Allow themselves.
type OriginPolicy struct {
	origins []string // normalised: lower case, default port dropped
	any     bool     // "*": every origin
	null    bool     // "null" listed
}

// NewOriginPolicy returns the policy that allows origins besides the
// request's host: each is "scheme://host[:port]" (as browsers send it; a
// default port may be given or not), "null" to allow the null origin, or
// "*" to allow every origin (no check at all). It fails for anything else
// (a path, a missing scheme).
func NewOriginPolicy(origins ...string) (*OriginPolicy, error) {
	p := &OriginPolicy{}
	for _, o := range origins {
		switch o = strings.TrimSpace(o); o {
		case "":
			continue
		case "*":
			p.any = true
			continue
		case "null":
			p.null = true
			continue
		}
		n, err := normalizeOrigin(o)
		if err != nil {
			return nil, err
		}
		p.origins = append(p.origins, n)
	}
	return p, nil
}

// ParseOriginPolicy is NewOriginPolicy of a comma-separated list (the
// --allow-origin flag of jetrpc serve).
func ParseOriginPolicy(list string) (*OriginPolicy, error) {
	return NewOriginPolicy(strings.Split(list, ",")...)
}

var errOrigin = errors.New(`an origin is "scheme://host[:port]", "null" or "*"`)

// normalizeOrigin checks an origin and returns it in lower case without a
// default port.
func normalizeOrigin(o string) (string, error) {
	u, err := url.Parse(o)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("origin " + o + ": " + errOrigin.Error())
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	return scheme + "://" + dropDefaultPort(scheme, host), nil
}

// dropDefaultPort removes :80 from an http(s)/ws host and :443 from an
// https/wss one.
func dropDefaultPort(scheme, host string) string {
	switch {
	case (scheme == "http" || scheme == "ws") && strings.HasSuffix(host, ":80"):
		return host[:len(host)-3]
	case (scheme == "https" || scheme == "wss") && strings.HasSuffix(host, ":443"):
		return host[:len(host)-4]
	}
	return host
}

// Allow reports whether a request with this Origin header ("" when it has
// none) sent to host (its Host header) may be served.
func (p *OriginPolicy) Allow(origin, host string) bool {
	if origin == "" || (p != nil && p.any) {
		return true
	}
	if origin == "null" {
		return p != nil && p.null
	}
	scheme, rest, ok := strings.Cut(origin, "://")
	if !ok || rest == "" {
		return false
	}
	if sameHost(scheme, rest, host) {
		return true
	}
	if p == nil {
		return false
	}
	for _, o := range p.origins {
		if len(o) == len(scheme)+3+len(rest) && strings.EqualFold(o[:len(scheme)], scheme) &&
			strings.EqualFold(o[len(scheme)+3:], rest) {
			return true
		}
		// The listed origin lacks a default port the browser sent.
		if hp := dropDefaultPortFold(scheme, rest); len(hp) != len(rest) && len(o) == len(scheme)+3+len(hp) &&
			strings.EqualFold(o[:len(scheme)], scheme) && strings.EqualFold(o[len(scheme)+3:], hp) {
			return true
		}
	}
	return false
}

// sameHost reports whether the origin's host[:port] is host, default
// ports aside.
func sameHost(scheme, originHost, host string) bool {
	if host == "" {
		return false
	}
	if strings.EqualFold(originHost, host) {
		return true
	}
	return strings.EqualFold(dropDefaultPortFold(scheme, originHost), dropDefaultPortFold(scheme, host))
}

// dropDefaultPortFold is dropDefaultPort for a scheme in any case.
func dropDefaultPortFold(scheme, host string) string {
	switch {
	case strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "ws"):
		return strings.TrimSuffix(host, ":80")
	case strings.EqualFold(scheme, "https") || strings.EqualFold(scheme, "wss"):
		return strings.TrimSuffix(host, ":443")
	}
	return host
}
