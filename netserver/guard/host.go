package guard

// NOTE: the Host check (--allow-host), go-ethereum's --http.vhosts. A page
// on an attacker's site can point its own DNS name at 127.0.0.1 (DNS
// rebinding): the visitor's browser then sends that page's requests to a
// server on localhost as same-origin requests, so no Origin check sees
// them. Their Host header still names the attacker's host, which this
// check refuses. An IP literal cannot be rebound, and localhost is not
// resolved through DNS, so both always pass.

import (
	"errors"
	"net/netip"
	"strings"
)

// HostPolicy decides which Host headers a server answers. localhost and IP
// literals always pass; so do the listed names. The port is ignored, as
// go-ethereum ignores it. A request with no Host header passes (no browser
// sends one). A nil *HostPolicy does no check at all, nor does a policy
// with "*" listed. It is safe for concurrent use.
type HostPolicy struct {
	names []string // lower case, no trailing dot
	any   bool     // "*": no check
}

// NewHostPolicy returns the policy that allows these names besides
// localhost and IP literals: each is a DNS name ("rpc.example.com", in any
// case, with or without a port, which is ignored) or "*" to allow every
// host. It fails for a name that cannot be a Host header's.
func NewHostPolicy(names ...string) (*HostPolicy, error) {
	p := &HostPolicy{}
	for _, n := range names {
		switch n = strings.TrimSpace(n); n {
		case "":
			continue
		case "*":
			p.any = true
			continue
		}
		if strings.ContainsAny(n, "/@?#* ") {
			return nil, errors.New("host " + n + `: want a host name (with or without a port) or "*"`)
		}
		h := strings.ToLower(strings.TrimSuffix(hostOnly(n), "."))
		if h == "" {
			return nil, errors.New("host " + n + `: want a host name (with or without a port) or "*"`)
		}
		p.names = append(p.names, h)
	}
	return p, nil
}

// ParseHostPolicy is NewHostPolicy of a comma-separated list (the
// --allow-host flag of jetrpc serve).
func ParseHostPolicy(list string) (*HostPolicy, error) {
	return NewHostPolicy(strings.Split(list, ",")...)
}

// Allow reports whether a request with this Host header may be served. It
// does not allocate.
func (p *HostPolicy) Allow(host string) bool {
	if p == nil || p.any || host == "" {
		return true
	}
	h := hostOnly(host)
	if h == "" {
		return false
	}
	h = strings.TrimSuffix(h, ".")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	if h[0] >= '0' && h[0] <= '9' || strings.IndexByte(h, ':') >= 0 {
		if _, err := netip.ParseAddr(h); err == nil {
			return true
		}
	}
	for _, n := range p.names {
		if strings.EqualFold(n, h) {
			return true
		}
	}
	return false
}

// hostOnly drops the port of a Host header: "[::1]:8080" -> "::1",
// "example.com:8080" -> "example.com". A bracket left open is "".
func hostOnly(host string) string {
	if host[0] == '[' {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return ""
		}
		return host[1:end]
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 && strings.IndexByte(host[:i], ':') < 0 {
		return host[:i]
	}
	return host // a name, an IPv4 address or a bare IPv6 address
}

// hostRefused is the body of the 403 to a refused Host, go-ethereum's.
const hostRefused = "invalid host specified"
