package guard

// NOTE: the gate of a stream connection (TCP, stdio, WebSocket): it decides
// about each message (Admit) and, on a connection that must authenticate
// itself, about the first one (Authenticate), and the server writes the
// answer it asks for in the connection's framing. A server without Auth or
// RateLimit gives its connections no gate, so that they pay one nil check
// per message.

import (
	"crypto/tls"
	"net"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
)

// AuthMethod is the method a TCP or stdio client authenticates with.
const AuthMethod = "rpc.authenticate"

// Gate is a stream connection's state for admitting messages. Its zero
// value is closed; Open readies it. It is the connection's reader's.
type Gate struct {
	g         *Guard
	transport string
	pending   bool          // not authenticated yet: the first message must authenticate
	asked     bool          // Start ran
	refused   bool          // the connection is closing unauthenticated
	binding   *auth.Binding // where the identity goes (TCP, stdio)
	remote    net.Addr
	cl        *bucket // the bucket; nil without a rate limit
}

// Open readies gt for a connection of transport (a netserver.Transport's
// name) from remote. With binding set (Bind's) the connection
// authenticates itself (TCP, stdio); id is the identity an HTTP upgrade
// established (WebSocket).
func (g *Guard) Open(gt *Gate, transport string, remote net.Addr, binding *auth.Binding, id *auth.Identity) {
	*gt = Gate{g: g, transport: transport, remote: remote, binding: binding}
	gt.pending = binding != nil && g.authn != nil
	gt.cl = g.clients.get(keyOf(id, remote), time.Now())
}

// Close gives the gate's bucket back.
func (gt *Gate) Close() {
	if gt.g != nil {
		gt.g.clients.put(gt.cl)
		gt.cl = nil
	}
}

// Refused reports whether the gate refused the connection (it is closing
// unauthenticated, or over the rate with its authenticating call).
func (gt *Gate) Refused() bool { return gt.refused }

// setIdentity makes id the connection's, and its bucket id's.
func (gt *Gate) setIdentity(id *auth.Identity) {
	gt.binding.Set(id)
	gt.pending = false
	if cs := gt.g.clients; cs.limited() {
		cs.put(gt.cl)
		gt.cl = cs.get(keyOf(id, gt.remote), time.Now())
	}
}

// Start asks the authenticator about a connection that must authenticate
// itself as it starts (after its TLS handshake, whose state is st): an
// identity from its certificate (or address) spares it the authenticating
// call. It does something once.
func (gt *Gate) Start(st *tls.ConnectionState) {
	if !gt.pending || gt.asked {
		return
	}
	gt.asked = true
	r := auth.Request{Transport: gt.transport, Remote: gt.remote, TLS: st}
	if id, err := gt.g.authn.Authenticate(&r); err == nil && id != nil {
		gt.setIdentity(id)
	}
}

// Verdict is what a gate decided about a message.
type Verdict uint8

// Verdicts.
const (
	// Pass: the server handles the message.
	Pass Verdict = iota
	// Drop: the connection is closing refused; the message is ignored.
	Drop
	// Limit: the message is over the client's rate; the server answers
	// each of its calls -32005 and handles none. (Admit no longer returns
	// it: the rate is charged through Charge, at the message's cost.)
	Limit
	// Authenticate: the connection has not authenticated yet; the server
	// passes the message to Authenticate.
	Authenticate
)

// Admit decides about a message the connection read: its
// authentication. The rate is charged once the engine has parsed the
// message and knows its cost (Charge), so it returns Pass, Drop or
// Authenticate.
func (gt *Gate) Admit(msg []byte) Verdict {
	switch {
	case gt.refused:
		return Drop
	case gt.pending:
		return Authenticate
	}
	return Pass
}

// Charge takes cost calls from the connection's client's bucket, or
// reports false when the client is over its rate: the server then answers
// each call of the message -32005 and runs none. The engine calls it with
// a message's cost (dispatch.Method.Cost; a batch, the sum of its
// members'), once it parsed the message (engineconn.Conn.SetCharge).
func (gt *Gate) Charge(cost int) bool {
	return gt.cl == nil || cost <= 0 || gt.cl.allow(time.Now(), cost)
}

// Charges reports whether the gate has a bucket to charge (RateLimit).
func (gt *Gate) Charges() bool { return gt.cl != nil }

// Answer is what the server answers to the first message of a connection
// that must authenticate: Why is Allowed when it authenticated (Result is
// then the result of its call, unless it was a notification), else
// Unauthorized (error -32006, with Data as error.data) or RateLimited
// (-32005, no data); the connection then closes once the answer is
// written. ID is the call's id (nil: null, or none for a notification).
type Answer struct {
	Why          Refusal
	ID           []byte
	Notification bool
	Data         []byte
	Result       []byte
}

var (
	authFirstData = encode.AppendString(nil, `authenticate first: call `+AuthMethod+` with {"token": TOKEN}`)
	authNoToken   = encode.AppendString(nil, AuthMethod+` needs params {"token": TOKEN} or [TOKEN]`)
)

// Authenticate handles the first message of a connection that must
// authenticate (Admit said so), over TLS state st (nil: none). The call is
//
//	{"jsonrpc":"2.0","id":1,"method":"rpc.authenticate","params":{"token":"TOKEN"}}
//
// (or "params":["TOKEN"]), and its result {"name":..,"scheme":..}. With a
// rate limit each attempt costs the address's bucket a call, so that
// guessing over new connections is limited like a flood of calls.
func (gt *Gate) Authenticate(msg []byte, st *tls.ConnectionState) Answer {
	var p decode.Parser
	m, err := p.Parse(msg)
	var a Answer
	if err == nil && m.Kind != decode.Batch {
		a.ID = m.ID
	}
	if err != nil || (m.Kind != decode.Call && m.Kind != decode.Notification) || string(m.Method) != AuthMethod {
		return gt.refuse(a, Unauthorized, authFirstData)
	}
	if gt.cl != nil && !gt.cl.allow(time.Now(), 1) { // the address's bucket: attempts count as calls
		return gt.refuse(a, RateLimited, nil)
	}
	token, ok := tokenParam(m.Params)
	if !ok {
		return gt.refuse(a, Unauthorized, authNoToken)
	}
	r := auth.Request{Transport: gt.transport, Remote: gt.remote, TLS: st, Token: token}
	who, err := gt.g.authn.Authenticate(&r)
	if err != nil || who == nil {
		if err == nil {
			err = auth.ErrNoCredentials
		}
		return gt.refuse(a, Unauthorized, encode.AppendString(nil, auth.Reason(err)))
	}
	gt.setIdentity(who)
	if m.Kind == decode.Notification {
		a.Notification = true
		return a
	}
	result := append(encode.AppendString(append([]byte(nil), `{"name":`...), who.Name), `,"scheme":`...)
	a.Result = append(encode.AppendString(result, who.Scheme), '}')
	return a
}

func (gt *Gate) refuse(a Answer, why Refusal, data []byte) Answer {
	gt.refused = true
	a.Why, a.Data = why, data
	return a
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
