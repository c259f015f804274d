package dispatch

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
)

// InlineForwarder is a Forwarder that can answer some calls at once, on
// the connection's reading goroutine, before the engine hands them to a
// worker: a gateway's cache hits. On a stream connection (TCP, Unix
// socket, WebSocket) the engine asks ForwardInline first for every single
// call and every batch; when it answers, the message costs its client's
// rate as a forwarded one would and never reaches Forward.
type InlineForwarder interface {
	Forwarder
	// ForwardInline appends the answer to the call or batch p holds to
	// dst and returns true when it has it now, without waiting for
	// anything (no I/O, no blocking lock); otherwise it returns dst and
	// false.
	ForwardInline(ctx context.Context, dst []byte, p *decode.Parser) ([]byte, bool)
}

// forwardInline answers the call parsed into s with the InlineForwarder,
// if it can.
func (e *Engine) forwardInline(ctx context.Context, p *policy, s *state, dst []byte, m *decode.Message) ([]byte, bool) {
	fi, ok := e.fwd.(InlineForwarder)
	if !ok || m.Kind != decode.Call && m.Kind != decode.Batch {
		return dst, false
	}
	out, ok := fi.ForwardInline(ctx, dst, &s.p)
	if !ok {
		return dst, false
	}
	if p != nil && p.charge != nil {
		if n := e.forwardCost(s, m); n > 0 && !p.charge(n) {
			return e.appendRejection(dst, s, m, encode.CodeLimitExceeded), true
		}
	}
	return out, true
}
