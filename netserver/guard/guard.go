package guard

import (
	"context"
	"net"
	"net/netip"

	"github.com/jetrpc/jetrpc/auth"
)

// Options says who may use a server and how much. A nil *Options, and
// every zero field, means the default: no authentication, no limit, no
// Host check, and browser origins other than the request's own host
// refused.
type Options struct {
	// Auth authenticates the clients (nil: none, everyone is served): an
	// HTTP request, WebSocket upgrade or event stream by its headers and
	// TLS state (a refusal is 401 with WWW-Authenticate), a TCP or stdio
	// connection by its TLS client certificate or its first call,
	// rpc.authenticate (a refusal is -32006 and the connection closes; see
	// AuthMethod). Handlers read the identity with auth.IdentityOf.
	Auth auth.Authenticator
	// Origins decides which browser origins may open a WebSocket or POST
	// (an event stream too): see OriginPolicy; a refused origin gets 403.
	// Nil: requests without an Origin header and those whose Origin is
	// the request's own host only.
	Origins *OriginPolicy
	// Hosts is the Host header check of the HTTP servers, against DNS
	// rebinding (see HostPolicy): a Host it refuses gets 403 "invalid host
	// specified" before anything is served. Nil: no check. An allowed
	// browser Origin (Origins) also gets CORS headers on every response,
	// and its preflights (OPTIONS) 204; see cors.go.
	Hosts *HostPolicy
	// RateLimit is how many calls per second one client may make (0: no
	// limit), a client being its identity when authenticated, else its
	// address (IPv4, or an IPv6 /64). A message costs its calls (a batch
	// its members). Over the limit a message is answered -32005 "Limit
	// exceeded" for each of its calls (TCP, stdio, WebSocket) or 429 with
	// Retry-After (HTTP, SSE), and nothing in it runs.
	RateLimit float64
	// RateBurst is how many calls a client may make at once (default
	// RateLimit rounded up). A batch larger than RateBurst is always
	// refused.
	RateBurst int
	// Cost, when set, is what a whole HTTP request's body costs the
	// client's bucket, charged before it is served (its 429 comes before
	// anything runs): dispatch.Engine.MessageCost gives each method's
	// Method.Cost, at the price of parsing the body once more. Nil: a
	// message costs its calls. Stream connections (TCP, stdio, WebSocket)
	// are always charged each method's Method.Cost by the engine, from the
	// message it parsed (Gate.Charge).
	Cost func(msg []byte) int
	// MaxClients bounds the clients whose buckets are kept (default
	// DefaultMaxClients); beyond it, new clients share one bucket until
	// idle ones expire.
	MaxClients int
	// MaxConnsPerIP bounds the open connections from one address (IPv4, or
	// an IPv6 /64; 0: unlimited): TCP connections over it are closed at
	// once, HTTP ones answered 429 with Retry-After and closed.
	MaxConnsPerIP int

	// Challenge, when set, appends to dst the WWW-Authenticate value of
	// the 401 that Auth's refusal err gets over HTTP (err is
	// auth.ErrNoCredentials when the request carried no credential). An
	// OAuth resource server points clients at its metadata here:
	// (*oauth.Resource).AppendUnauthorized. Default: `Bearer
	// realm="jetrpc"`, with `, error="invalid_token"` when a token was
	// refused.
	Challenge func(dst []byte, err error) []byte
	// Public are paths whose GET and HEAD requests are served without
	// authentication (Auth is not asked), such as the OAuth protected
	// resource metadata (RFC 9728), which clients read to learn where to
	// get a token. Requests with other methods are authenticated as usual.
	Public []string
}

// or returns the options, the zero value for nil.
func (o *Options) or() Options {
	if o == nil {
		return Options{}
	}
	return *o
}

// Guard applies Options to the connections and requests of the servers
// that share it (netserver.Options.Guard). Its table of clients (the rate
// buckets and the connections per address) is its own: give one Guard to
// several servers (jetrpc serve's --tcp and --http) so that a client's calls
// and connections count across them. It is safe for concurrent use.
//
// Its methods other than New and Clients are the servers' (netserver's):
// they check one request or connection and answer a refused one.
type Guard struct {
	authn   auth.Authenticator // nil: none
	hosts   *HostPolicy        // nil: no Host check
	origins *OriginPolicy      // nil: the request's own host only
	clients *clients           // nil: no per-client limit
	cost    func([]byte) int   // Options.Cost (nil: countCalls)
	// challenge is Options.Challenge (nil: the default's).
	challenge func(dst []byte, err error) []byte
	public    map[string]bool // Options.Public (nil: none)
}

// New returns the Guard of opts (nil means the defaults).
func New(opts *Options) *Guard {
	o := opts.or()
	g := &Guard{authn: o.Auth, hosts: o.Hosts, origins: o.Origins, clients: newClients(opts), cost: o.Cost,
		challenge: o.Challenge}
	for _, p := range o.Public {
		if g.public == nil {
			g.public = map[string]bool{}
		}
		g.public[p] = true
	}
	return g
}

// Clients returns the number of clients whose rate buckets are kept.
func (g *Guard) Clients() int {
	if !g.clients.limited() {
		return 0
	}
	return g.clients.len()
}

// Refusal is why a guard refused a connection or a request; the servers
// report it to their observer (netserver.ConnEvent).
type Refusal uint8

// Refusals.
const (
	Allowed        Refusal = iota // not refused (or answered without a refusal: a CORS preflight)
	HostRefused                   // the Host header (403)
	OriginRefused                 // the Origin header (403)
	Unauthorized                  // Auth refused the client (401, -32006)
	RateLimited                   // over RateLimit (429, -32005)
	OverConnsPerIP                // over MaxConnsPerIP (closed, 429)
)

// Authenticates reports whether the guard authenticates clients (Auth).
func (g *Guard) Authenticates() bool { return g.authn != nil }

// Gated reports whether stream connections need a Gate: with Auth or
// RateLimit.
func (g *Guard) Gated() bool { return g.authn != nil || g.clients.limited() }

// Calls is what msg costs for the rate limit (0 without one): the members
// of a batch, 1 for a request, 0 for a response (the client answering a
// call of the server's). It does not validate msg; the engine does.
func (g *Guard) Calls(msg []byte) int {
	if !g.clients.limited() {
		return 0
	}
	if g.cost != nil {
		return g.cost(msg)
	}
	return countCalls(msg)
}

// Bind returns parent ready to take the identity of a stream connection
// that authenticates itself (TCP, stdio), and its binding; parent and nil
// without Auth.
func (g *Guard) Bind(parent context.Context) (context.Context, *auth.Binding) {
	if g.authn == nil {
		return parent, nil
	}
	return auth.Bind(parent)
}

// OpenConn counts a new connection from remote for MaxConnsPerIP and
// returns the address it counts under; false when that address holds
// MaxConnsPerIP connections already. A true result is matched by CloseConn.
func (g *Guard) OpenConn(remote net.Addr) (netip.Addr, bool) {
	ip := ipOf(remote)
	return ip, g.clients.openConn(ip)
}

// CloseConn uncounts a connection OpenConn counted.
func (g *Guard) CloseConn(ip netip.Addr) { g.clients.closeConn(ip) }

// MaxConnsPerIP returns the bound on connections per address (0: none).
func (g *Guard) MaxConnsPerIP() int {
	if g.clients == nil {
		return 0
	}
	return g.clients.perIP
}
