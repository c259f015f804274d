package dispatch

// NOTE: an Engine whose Options.Forward is set hands every request it
// parsed (a call, a notification, a batch) to the Forwarder instead of
// its method table: package gateway forwards them upstream. The engine
// still does what every message needs: parsing, the answers to messages
// that do not parse or are invalid, responses to the connection's Peer,
// the connection's charge (by Options.MethodCosts, by name), and where the message runs (a worker for calls
// and batches, the connection's serial queue for notifications, which
// keep their order). Nothing here is on the path of an engine without a
// Forwarder but one nil check.

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
)

// Forwarder takes over the requests of an Engine (Options.Forward): a
// gateway that sends them to other servers. The engine parses each
// message, answers those that do not parse and invalid single messages,
// delivers responses to the connection's Peer, and hands every call,
// notification and batch to Forward, off the connection's reading
// goroutine.
type Forwarder interface {
	// Forward appends the response to the message p holds (p.Message():
	// a Call, a Notification or a Batch whose members are p's) to dst and
	// returns it; dst unchanged when no response is due. ctx is the
	// connection's: dispatch.PeerOf answers with its peer. p and the
	// slices of its messages are valid only during the call.
	Forward(ctx context.Context, dst []byte, p *decode.Parser) []byte
}

// ForwarderFunc adapts a function to Forwarder.
type ForwarderFunc func(ctx context.Context, dst []byte, p *decode.Parser) []byte

// Forward calls f.
func (f ForwarderFunc) Forward(ctx context.Context, dst []byte, p *decode.Parser) []byte {
	return f(ctx, dst, p)
}

var _ Forwarder = ForwarderFunc(nil)

// forwards reports whether m goes to the engine's Forwarder.
func (e *Engine) forwards(m *decode.Message) bool {
	if e.fwd == nil {
		return false
	}
	switch m.Kind {
	case decode.Call, decode.Notification, decode.Batch:
		return true
	}
	return false
}

// forward hands the message parsed into s to the Forwarder, once the
// connection's charge allows it; an answer to a single call over
// MaxResponse is replaced by the error that says so.
func (e *Engine) forward(ctx context.Context, p *policy, s *state, dst []byte, m *decode.Message) []byte {
	if p != nil && p.charge != nil && !s.routed.charged {
		if n := e.forwardCost(s, m); n > 0 && !p.charge(n) {
			return e.appendRejection(dst, s, m, encode.CodeLimitExceeded)
		}
	}
	start := len(dst)
	dst = e.fwd.Forward(ctx, dst, &s.p)
	if m.Kind == decode.Call && len(dst)-start >= e.maxResp {
		return e.appendRespTooLarge(dst[:start], m.ID)
	}
	return dst
}

// forwardCost is what a forwarded message costs its client's rate: each
// call and notification its method's Options.MethodCosts (by name; 1 when
// it has none), an invalid member 1, a response nothing.
func (e *Engine) forwardCost(s *state, m *decode.Message) int {
	if m.Kind != decode.Batch {
		return e.nameCost(m.Kind, m.Method)
	}
	n := 0
	for i := range s.p.BatchLen() {
		kind, name := s.p.BatchMethod(i)
		n += e.nameCost(kind, name)
	}
	return max(n, 1)
}

func (e *Engine) nameCost(kind decode.Kind, name []byte) int {
	switch kind {
	case decode.Result, decode.ErrorResponse:
		return 0
	case decode.Call, decode.Notification:
		if c := e.costs[string(name)]; c > 0 {
			return c
		}
	}
	return 1
}

// Send writes msg, one complete JSON-RPC message, to the peer now: a
// Forwarder's answer that must come before the notifications it sends
// next (a subscription's id, which go-ethereum's clients want before its
// notifications). The Forwarder then appends nothing for that message.
func (p *Peer) Send(ctx context.Context, msg []byte) error {
	if p == nil {
		return ErrNoPeer
	}
	return p.send.Send(ctx, msg)
}
