package netserver

// NOTE: authentication and the per-client limits at the connection. A
// server with Options.Auth, RateLimit or MaxConnsPerIP has a sec (below);
// each stream connection that needs checking per message gets a gate
// (core.gate, nil otherwise, so that a server without them pays one nil
// check per message). The HTTP side is in auth_http.go, the buckets in
// limit.go.
//
// Where the identity comes from:
//
//   - HTTP: every request, from its headers (Authorization: Bearer), the
//     TLS state and the address. A keep-alive connection that sends the
//     same Authorization header again keeps the identity it got for it
//     until the identity's Until (no allocation, no second check). A
//     refused request gets 401 with WWW-Authenticate.
//   - WebSocket: the upgrade request, as HTTP (401 refuses the upgrade);
//     the connection keeps the identity for its lifetime.
//   - SSE: the POST that opens the stream, as HTTP.
//   - TCP and stdio: at the start, from the TLS client certificate (or
//     anything else the authenticator reads in a Request without a
//     token). When that gives no identity, the first message must be the
//     authenticating call
//
//     {"jsonrpc":"2.0","id":1,"method":"rpc.authenticate","params":{"token":"TOKEN"}}
//
//     (or "params":["TOKEN"]): TOKEN goes to the authenticator as a bearer
//     token would over HTTP, and the answer is {"name":..,"scheme":..}. Any
//     other first message, or a refused token, is answered -32006
//     Unauthorized (error.data says why) and the connection is closed after
//     that answer. rpc.* names are reserved for the server by the JSON-RPC
//     specification, so no method of the engine can clash with it; it is
//     answered only before authentication (later it is -32601 like any
//     unknown method).

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
)

// ErrUnauthenticated is returned by ServeStdio when the client did not
// authenticate (Options.Auth).
var ErrUnauthenticated = errors.New("netserver: client refused: not authenticated")

// AuthMethod is the method a TCP or stdio client authenticates with.
const AuthMethod = "rpc.authenticate"

// sec is a server's authentication and per-client limits. (The Origin
// policy is applied before, with the Host check and CORS: cors.go.)
type sec struct {
	authn   auth.Authenticator // nil: none
	clients *clients           // nil: no per-client limit
}

func newSec(opts *Options) *sec {
	o := opts.or()
	cs := newClients(opts)
	if o.Clients != nil {
		cs = o.Clients.cs
	}
	return &sec{authn: o.Auth, clients: cs}
}

// gated reports whether stream connections need a gate.
func (s *sec) gated() bool { return s.authn != nil || s.clients.limited() }

// gate is a stream connection's state for admitting messages.
type gate struct {
	sec     *sec
	pending bool          // not authenticated yet: the first message must authenticate
	asked   bool          // authenticateConn ran
	refused bool          // the connection is closing unauthenticated
	binding *auth.Binding // where the identity goes (TCP, stdio)
	remote  net.Addr
	cl      *bucket // the bucket; nil without a rate limit
}

// bind returns parent ready to take the identity of a stream connection
// that authenticates itself (TCP, stdio), and its binding; parent and nil
// without Options.Auth.
func (s *sec) bind(parent context.Context) (context.Context, *auth.Binding) {
	if s.authn == nil {
		return parent, nil
	}
	return auth.Bind(parent)
}

// newGate returns the gate of a stream connection, or nil when none is
// needed. With binding set the connection authenticates itself (TCP,
// stdio); id is the identity an HTTP upgrade established.
func (s *sec) newGate(remote net.Addr, binding *auth.Binding, id *auth.Identity) *gate {
	if s == nil || !s.gated() {
		return nil
	}
	g := &gate{sec: s, remote: remote, binding: binding}
	g.pending = binding != nil && s.authn != nil
	g.cl = s.clients.get(keyOf(id, remote), time.Now())
	return g
}

// close gives the gate's bucket back.
func (g *gate) close() {
	if g != nil {
		g.sec.clients.put(g.cl)
		g.cl = nil
	}
}

// setIdentity makes id the connection's, and its bucket id's.
func (g *gate) setIdentity(id *auth.Identity) {
	g.binding.Set(id)
	g.pending = false
	if cs := g.sec.clients; cs.limited() {
		cs.put(g.cl)
		g.cl = cs.get(keyOf(id, g.remote), time.Now())
	}
}

// authenticateConn asks the authenticator about a stream connection as it
// starts (after its TLS handshake): an identity from its certificate (or
// address) spares it the authenticating call.
func (c *core) authenticateConn() {
	g := c.gate
	if g == nil || !g.pending || g.asked {
		return
	}
	g.asked = true
	r := auth.Request{Transport: c.via.String(), Remote: g.remote, TLS: TLSState(c.dc.Context())}
	if id, err := g.sec.authn.Authenticate(&r); err == nil && id != nil {
		g.setIdentity(id)
	}
}

// admit decides whether the reader handles msg (true) or has answered it
// itself: the authenticating call, a message before authentication, a
// message over the rate limit.
func (c *core) admit(msg []byte) bool {
	g := c.gate
	switch {
	case g.refused:
		return false
	case g.pending:
		c.authenticateCall(msg)
		return false
	case g.cl == nil:
		return true
	}
	n := countCalls(msg)
	if n == 0 || g.cl.allow(time.Now(), n) {
		return true
	}
	c.lim.observe(c.via, ConnRateLimited)
	b, mark := c.t.begin(c.local.B)
	start := len(b)
	b = c.dc.Reject(b, msg, encode.CodeLimitExceeded)
	if len(b) == start {
		b = b[:mark]
	} else {
		b = c.t.end(b, mark)
	}
	c.local.B = b
	return false
}

var (
	authFirstData = encode.AppendString(nil, `authenticate first: call `+AuthMethod+` with {"token": TOKEN}`)
	authNoToken   = encode.AppendString(nil, AuthMethod+` needs params {"token": TOKEN} or [TOKEN]`)
)

// authenticateCall handles the first message of a connection that must
// authenticate.
func (c *core) authenticateCall(msg []byte) {
	g := c.gate
	var p decode.Parser
	m, err := p.Parse(msg)
	var id []byte
	if err == nil && m.Kind != decode.Batch {
		id = m.ID
	}
	if err != nil || (m.Kind != decode.Call && m.Kind != decode.Notification) || string(m.Method) != AuthMethod {
		c.refuse(id, authFirstData)
		return
	}
	if g.cl != nil && !g.cl.allow(time.Now(), 1) { // the address's bucket: attempts count as calls
		c.lim.observe(c.via, ConnRateLimited)
		c.refuseWith(id, encode.CodeLimitExceeded, nil)
		return
	}
	token, ok := tokenParam(m.Params)
	if !ok {
		c.refuse(id, authNoToken)
		return
	}
	r := auth.Request{Transport: c.via.String(), Remote: g.remote, TLS: TLSState(c.dc.Context()), Token: token}
	who, err := g.sec.authn.Authenticate(&r)
	if err != nil || who == nil {
		if err == nil {
			err = auth.ErrNoCredentials
		}
		c.refuse(id, encode.AppendString(nil, auth.Reason(err)))
		return
	}
	g.setIdentity(who)
	if m.Kind == decode.Notification {
		return
	}
	result := append(encode.AppendString(append([]byte(nil), `{"name":`...), who.Name), `,"scheme":`...)
	result = append(encode.AppendString(result, who.Scheme), '}')
	b, mark := c.t.begin(c.local.B)
	c.local.B = c.t.end(encode.AppendResult(b, id, result), mark)
}

// tokenParam returns the token of the authenticating call's params:
// {"token": "..."} or ["..."].
func tokenParam(params []byte) ([]byte, bool) {
	var it decode.Iter
	if !it.Reset(params) {
		return nil, false
	}
	for it.Next() {
		if it.IsObject() && !decode.KeyEquals(it.Key(), "token") {
			continue
		}
		v := it.Value()
		if len(v) < 2 || v[0] != '"' {
			return nil, false
		}
		t, err := decode.AppendUnquote(nil, v)
		return t, err == nil && len(t) > 0
	}
	return nil, false
}

// refuse answers Unauthorized (-32006 by default; with id, nil for null) and closes the connection
// once the answer is written. A client that tries again must reconnect; with
// RateLimit each attempt costs its address a call, so that guessing over
// new connections is limited like a flood of calls.
func (c *core) refuse(id, data []byte) {
	c.lim.observe(c.via, ConnUnauthorized)
	c.lim.log.Info("netserver: client not authenticated; closing", "remote", c.remote(),
		"reason", bytesconv.B2S(data))
	c.refuseWith(id, encode.CodeUnauthorized, data)
}

// refuseWith answers the condition of default code code (with the
// endpoint's code for it: dispatch.Options.Codes) and closes the connection
// once the answer is written.
func (c *core) refuseWith(id []byte, code encode.Code, data []byte) {
	c.gate.refused = true
	b, mark := c.t.begin(c.local.B)
	b = encode.AppendError(b, id, c.dc.ConditionCode(code), code.String(), data) // the endpoint's code
	c.local.B = c.t.end(b, mark)
	c.mu.Lock()
	c.stopping.Store(true) // readLoop ends once the answer is handed over
	c.mu.Unlock()
}

// refusedErr maps the end of reading of a connection refused by its gate to
// ErrUnauthenticated.
func (c *core) refusedErr(err error) error {
	if err == errStopped && c.gate != nil && c.gate.refused {
		return ErrUnauthenticated
	}
	return err
}

// failureLimited charges a refused authentication to the bucket of the
// client's address and reports whether that bucket was empty: with a rate
// limit, a client guessing credentials gets 429 once it has used its rate
// on failures, as a flood of calls does.
func (s *sec) failureLimited(remote net.Addr, now time.Time) bool {
	cs := s.clients
	if !cs.limited() {
		return false
	}
	b := cs.get(clientKey{ip: ipOf(remote)}, now)
	ok := b.allow(now, 1)
	cs.put(b)
	return !ok
}

// withIdentity returns parent carrying id, or parent for nil.
func withIdentity(parent context.Context, id *auth.Identity) context.Context {
	if id == nil {
		return parent
	}
	return auth.WithIdentity(parent, id)
}
