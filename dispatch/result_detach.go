package dispatch

// NOTE: a call of a Method with Streams on a transport whose Streamer is
// an engineconn.Detacher (fasthttp: a response body is written only after
// the request's handler returned). The call cannot run on the caller's
// goroutine, since that goroutine must return before any piece can go
// out; so it runs on a goroutine of its own, with copies of its id,
// params and _meta (the caller's buffers are reused once it returns), a
// context and a callCtx of its own (the caller's state goes back to the
// pool). The caller waits until either the first piece is handed to the
// transport (it then returns with no response; the transport sends the
// pieces as its body) or the call ended before one (its response, made
// on the call's goroutine into a buffer of its own, is appended to the
// caller's dst).

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/internal/engineconn"
)

// detacher returns the Detacher ctx offers, or nil.
func detacher(ctx context.Context) engineconn.Detacher {
	d, _ := ctx.Value(engineconn.StreamKey{}).(engineconn.Detacher)
	return d
}

// detachedStream is the Streamer of a detached call (not a Detacher: the
// call runs where it is): it tells the waiting caller when the first
// piece comes.
type detachedStream struct {
	s       engineconn.Detacher
	started chan struct{}
	first   bool
}

func (d *detachedStream) Piece(b []byte, first bool) error {
	if first && !d.first {
		d.first = true
		d.s.Detached()
		close(d.started) // the caller returns; the transport reads the pieces
	}
	return d.s.Piece(b, first)
}

func (d *detachedStream) End(b []byte, ok bool) { d.s.End(b, ok) }

// detachedParent is the parent context of a detached call: it offers the
// call's detachedStream.
type detachedParent struct {
	context.Context
	s *detachedStream
}

func (p *detachedParent) Value(key any) any {
	if _, ok := key.(engineconn.StreamKey); ok {
		return p.s
	}
	return p.Context.Value(key)
}

// serveDetached runs m, a call of md, a Method with Streams, on a
// goroutine of its own and waits for its first piece or its end.
func (e *Engine) serveDetached(cc *callCtx, dst []byte, m *decode.Message, md *method, s engineconn.Detacher) []byte {
	// One copy of what the call keeps from the message.
	own := make([]byte, 0, len(m.ID)+len(m.Params)+len(m.Meta))
	own = append(own, m.ID...)
	own = append(own, m.Params...)
	own = append(own, m.Meta...)
	cm := decode.Message{Kind: m.Kind, ID: own[:len(m.ID):len(m.ID)]}
	cm.Params = own[len(m.ID) : len(m.ID)+len(m.Params) : len(m.ID)+len(m.Params)]
	cm.Meta = own[len(m.ID)+len(m.Params):]
	if m.Meta == nil {
		cm.Meta = nil
	}
	d := &detachedStream{s: s, started: make(chan struct{})}
	gcc := &callCtx{parent: &detachedParent{Context: cc.parent, s: d}, rc: new(reqCtx), rng: seed()}
	done := make(chan []byte, 1)
	go func() {
		done <- e.serve(gcc, nil, &cm, md)
	}()
	select {
	case <-d.started:
		return dst // the transport sends the rest
	case resp := <-done:
		return append(dst, resp...)
	}
}
