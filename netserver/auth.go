package netserver

// NOTE: the connection side of package guard (Options.Guard): a server's
// sec holds its Guard; each stream connection that needs checking per
// message gets a gate (core.gate, nil otherwise, so that a server without
// Auth or RateLimit pays one nil check per message), which decides and
// whose answers are written here in the connection's framing. The HTTP
// side is in nethttp's http_guard.go; where each transport takes the
// identity from is in package guard's doc.

import (
	"context"
	"errors"
	"net"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
	"github.com/jetrpc/jetrpc/netserver/guard"
)

// ErrUnauthenticated is returned by ServeStdio when the client did not
// authenticate (guard.Options.Auth).
var ErrUnauthenticated = errors.New("netserver: client refused: not authenticated")

// sec is a server's guard.
type sec struct{ *guard.Guard }

func newSec(opts *Options) *sec {
	if g := opts.or().Guard; g != nil {
		return &sec{g}
	}
	return &sec{guard.New(nil)}
}

// gate is a stream connection's guard.Gate.
type gate struct {
	guard.Gate
	charging bool // the engine charges the rate (core.charge)
}

// newGate returns the gate of a stream connection of transport via, or
// nil when none is needed. With binding set the connection authenticates
// itself (TCP, stdio); id is the identity an HTTP upgrade established.
func (s *sec) newGate(via Transport, remote net.Addr, binding *auth.Binding, id *auth.Identity) *gate {
	if s == nil || !s.Gated() {
		return nil
	}
	g := new(gate)
	s.Open(&g.Gate, via.String(), remote, binding, id)
	return g
}

// close gives the gate's bucket back.
func (g *gate) close() {
	if g != nil {
		g.Close()
	}
}

// authenticateConn asks the authenticator about a stream connection as it
// starts (after its TLS handshake): an identity from its certificate (or
// address) spares it the authenticating call.
func (c *core) authenticateConn() {
	if g := c.gate; g != nil {
		g.Start(TLSState(c.dc.Context()))
	}
}

// admit decides whether the reader handles msg (true) or has answered it
// itself: the authenticating call, a message before authentication, a
// message over the rate limit.
func (c *core) admit(msg []byte) bool {
	switch c.gate.Admit(msg) {
	case guard.Pass:
		if !c.gate.charging && c.gate.Charges() {
			// The engine charges each message's cost once it parsed it
			// (Method.Cost): one closure per connection.
			c.gate.charging = true
			c.dc.SetCharge(c.charge)
		}
		return true
	case guard.Authenticate:
		c.authenticateCall(msg)
	}
	return false
}

// charge takes a message's cost from the client's bucket (the engine
// calls it, engineconn.Conn.SetCharge); over the rate the engine answers
// each call -32005.
func (c *core) charge(cost int) bool {
	if c.gate.Charge(cost) {
		return true
	}
	c.lim.observe(c.via, ConnRateLimited)
	return false
}

// authenticateCall handles the first message of a connection that must
// authenticate.
func (c *core) authenticateCall(msg []byte) {
	a := c.gate.Authenticate(msg, TLSState(c.dc.Context()))
	switch {
	case a.Why == guard.Unauthorized:
		c.refuse(a.ID, a.Data)
	case a.Why == guard.RateLimited:
		c.lim.observe(c.via, ConnRateLimited)
		c.refuseWith(a.ID, encode.CodeLimitExceeded, nil)
	case !a.Notification:
		b, mark := c.t.begin(c.local)
		c.local = c.t.end(encode.AppendResult(b, a.ID, a.Result), mark)
	}
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
	b, mark := c.t.begin(c.local)
	b = encode.AppendError(b, id, c.dc.ConditionCode(code), code.String(), data) // the endpoint's code
	c.local = c.t.end(b, mark)
	c.mu.Lock()
	c.stopping.Store(true) // readLoop ends once the answer is handed over
	c.mu.Unlock()
}

// refusedErr maps the end of reading of a connection refused by its gate to
// ErrUnauthenticated.
func (c *core) refusedErr(err error) error {
	if err == errStopped && c.gate != nil && c.gate.Refused() {
		return ErrUnauthenticated
	}
	return err
}

// withIdentity returns parent carrying id, or parent for nil.
func withIdentity(parent context.Context, id *auth.Identity) context.Context {
	if id == nil {
		return parent
	}
	return auth.WithIdentity(parent, id)
}
