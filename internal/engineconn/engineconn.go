// Package engineconn is the engine as a connection's transport sees it:
// the seam between package dispatch and jetrpc's own transports
// (netserver, mcp, acp). It declares what a transport calls, [Conn] and
// [Routed], and [NewConn], which makes one; package dispatch implements
// them, so that its documentation shows what a user calls (Process,
// Register, handlers) and not this plumbing.
//
// NOTE: dispatch imports this package, so this package cannot import
// dispatch: dispatch hands its constructor over in an init (SetNewConn),
// as google.golang.org/protobuf's internal packages are wired. A Conn is
// a struct inside dispatch's own per-connection allocation whose Impl is
// that allocation, so a transport holds one pointer, as it did when the
// type was dispatch's, and a connection costs no extra byte. A message
// costs one interface call per step (Try, Run) and no allocation: a
// Routed is a pointer into the engine's pooled per-message state.
package engineconn

import (
	"context"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/pool"
)

// Route tells a transport where a message should run (Conn.Try).
type Route uint8

const (
	// RouteInline: the message was processed on the caller's goroutine.
	RouteInline Route = iota
	// RouteWorker: a call or batch that may block; run it with Conn.Run
	// on a worker goroutine (Conn.Go) so it blocks nothing else.
	RouteWorker
	// RouteOrdered: a notification of a non-concurrent method that may
	// block (or a batch holding one); run it with Conn.Run on the
	// connection's serial queue, in arrival order. Until it has run (or
	// been rejected), a notification Try would otherwise run inline is
	// routed so too, behind it.
	RouteOrdered
	// RouteAsync: a call for the engine's dispatch.AsyncForwarder; start
	// it with Conn.Start on the reading goroutine (after Routed.Keep),
	// and run it as RouteWorker when Start declines.
	RouteAsync
)

// Finisher takes the answer of a message started with Conn.Start.
type Finisher interface {
	// Finish is called once, with the dst given to Start and the
	// response appended (dst unchanged: no response is due), on any
	// goroutine, maybe before Start returns. The Routed is released by
	// then. It must not wait. When later is not nil, the write of the
	// answer may be left to it (Deferrer).
	Finish(b []byte, later Deferrer)
}

// Deferrer takes work to run a little later on the goroutine that
// finished a message (a client's reader, once it has delivered what it
// read: client.Later is one), so that the answers one read makes ready
// share a write.
type Deferrer interface {
	Defer(f interface{ Flush() })
}

// Sender writes one complete JSON-RPC message to a connection: the
// transport frames and queues it, waiting while its output is over its
// bound. msg is valid only during the call. It fails once the connection
// can no longer be written. An interface rather than a func, so that a
// transport hands its connection itself over (NewConn) without a method
// value: 16 bytes of every connection.
type Sender interface {
	Send(ctx context.Context, msg []byte) error
}

// SendFunc is a func as a Sender.
type SendFunc func(ctx context.Context, msg []byte) error

// Send calls f.
func (f SendFunc) Send(ctx context.Context, msg []byte) error { return f(ctx, msg) }

// Routed is a message that Conn.Try parsed and did not run: it is to run
// on its Route, parsed already. The transport keeps its bytes with Keep
// (before it reads on) and then runs it once with Conn.Run, or answers it
// with Conn.RejectRouted; either releases it, and nothing may use it
// afterwards.
type Routed interface {
	// Route returns where the message is to run: RouteWorker or
	// RouteOrdered.
	Route() Route
	// Keep copies the message into buf (reusing its capacity) and returns
	// the copy, which the Routed uses from then on: the transport may
	// reuse the buffer the message was read into. The copy must stay
	// untouched until the message has run.
	Keep(buf []byte) []byte
}

// Conn is one connection's side of the engine: it processes the
// connection's messages under the connection's context and gives its
// handlers the connection's peer (dispatch.PeerOf of its context). A
// transport makes one per connection with NewConn and calls Close when
// the connection ends.
//
// A transport reads a message and hands it to Try on its reading
// goroutine. Cheap messages are answered at once; the others come back
// as a Routed, which the transport runs with Run where its Route says
// (RouteWorker: on a worker, see Go; RouteOrdered: on the connection's own
// first-in-first-out queue, so that notifications keep their order).
type Conn struct {
	// Impl is dispatch's connection, which holds this Conn.
	Impl
}

// Impl is what Conn does, as package dispatch implements it.
type Impl interface {
	// Context returns the context the connection's handlers run under;
	// it is cancelled by Cancel and Close, and answers dispatch.PeerOf.
	Context() context.Context
	// Try is the transport's entry point for a message read from the
	// connection, on its reading goroutine. When everything msg would run
	// is inline (cheap, non-blocking handlers; errors; responses to the
	// peer's calls) it processes msg, appends the response to dst (dst
	// unchanged when none is due) and returns a nil Routed, with no
	// goroutine hand-off. Otherwise it runs nothing and returns dst
	// unchanged and the message parsed, to run with Run on its Route
	// (after Routed.Keep if msg's buffer is to be reused), or to answer
	// with RejectRouted.
	Try(dst, msg []byte) ([]byte, Routed)
	// TryBuffered is Try for a message the transport had buffered when it
	// handed over the previous one: the reading goroutine did not wait
	// (for input or for room to write) since the previous Try returned.
	// The engine then times a quick method's run from the end of the
	// previous one, with one clock read instead of two (see dispatch's
	// cost.go); a message after a wait must go to Try.
	TryBuffered(dst, msg []byte) ([]byte, Routed)
	// Rest tells the engine that the reading goroutine is about to wait
	// (for input, or for room to write): it gives back the working state
	// it kept from one Try to the next, so that a burst of messages takes
	// it from the engine's pool once, not once a message. A transport
	// that uses Try calls it before each wait and when it stops reading
	// (a state not given back is only garbage, never shared).
	Rest()
	// Run runs a message Try routed, under the connection's context,
	// appends its response to dst and releases r. A transport calls it
	// off the reading goroutine, on r.Route().
	Run(dst []byte, r Routed) []byte
	// Start starts a message Try routed to RouteAsync, whose answer is
	// appended to dst and handed to f.Finish later, with no goroutine
	// waiting for it; it reports false, doing nothing, when the message
	// must run with Run instead. Once it returns true, r belongs to the
	// engine until f.Finish. A Cancel ends what was started (its answers
	// come soon, through Finish).
	Start(dst []byte, r Routed, f Finisher) bool
	// RejectRouted is Reject for a message Try routed; it releases r.
	RejectRouted(dst []byte, r Routed, code encode.Code) []byte
	// Process processes msg under the connection's context and appends
	// its response to dst, like dispatch.Engine.ProcessContext, off the
	// reading goroutine.
	Process(dst, msg []byte) []byte
	// ProcessStream is dispatch.Engine.ProcessStream under the
	// connection's context.
	ProcessStream(msg []byte, emit func(resp []byte))
	// Reject appends the answer to a message that will not be run: every
	// call in it gets an error with code (for example CodeOverloaded; an
	// engine condition's code is answered as dispatch.Options.Codes maps
	// it) and its id, invalid members get -32600 as usual, notifications
	// and responses nothing. It returns dst unchanged when no answer is
	// due.
	Reject(dst, msg []byte, code encode.Code) []byte
	// Go runs t on the engine's worker pool (the pool that also runs
	// batch members; its size is dispatch.Options.MaxWorkers). It returns
	// false, without running t, when every worker is busy or the engine
	// is closed.
	Go(t pool.Task) bool
	// ConditionCode returns the code the engine answers the condition
	// whose default code is def with (dispatch.Engine.ConditionCode). A
	// transport that answers a condition itself on a connection (a
	// refused credential, a client over its rate) uses it.
	ConditionCode(def encode.Code) encode.Code
	// SetCharge makes the connection's messages pay for its client's
	// rate: once a message read by Try, Process or ProcessStream is
	// parsed, charge is called with its cost (the sum of its calls'
	// dispatch.Method.Cost, 1 for an unknown method or an invalid member,
	// nothing for responses) and, when it returns false, every call in it
	// is answered the LimitExceeded condition and nothing in it runs. Call
	// it before the first message; nil: nothing is charged. The methods a
	// connection serves come from its parent context
	// (dispatch.WithMethodSet).
	SetCharge(charge func(cost int) bool)
	// SetStreamer makes the connection's calls offer src.Streamer() as
	// their Streamer (StreamKey) when a handler takes its ResultWriter.
	// Call it before the first message.
	SetStreamer(src StreamSource)
	// Cancel cancels the context of the connection's handlers (the
	// connection failed: their answers cannot be written).
	Cancel()
	// ClosePeer fails the calls pending to the peer, and later ones, with
	// dispatch.ErrPeerClosed, leaving the handlers running: reading has
	// ended, so no answer to them can arrive, but the answers to the
	// client's calls still can be written.
	ClosePeer()
	// Close ends the connection's side of the engine: calls to the peer
	// that are pending fail with dispatch.ErrPeerClosed, and so do later
	// ones, and the handlers' context is cancelled. A transport calls it
	// once reading has ended and the answers it still wanted to write are
	// written.
	Close()
}

// Engine is a *dispatch.Engine (this package cannot name the type).
type Engine interface {
	// Context returns the engine's base context.
	Context() context.Context
}

// NewFunc is the constructor package dispatch hands over (SetNewConn).
type NewFunc func(e Engine, parent context.Context, send Sender, oneWay bool) *Conn

var newConn NewFunc

// SetNewConn is called once, by package dispatch's init, with its Conn
// constructor.
func SetNewConn(f NewFunc) { newConn = f }

// NewConn returns the engine's side of a new connection; e is a
// *dispatch.Engine. Its context derives from parent (the engine's context
// when nil). send writes one message to the client; oneWay peers take
// notifications only (an SSE stream). A nil send (or a nil SendFunc in
// it) gives a connection without a peer: dispatch.PeerOf returns nil in
// its handlers.
func NewConn(e Engine, parent context.Context, send Sender, oneWay bool) *Conn {
	if f, ok := send.(SendFunc); ok && f == nil {
		send = nil
	}
	return newConn(e, parent, send, oneWay)
}

// StreamKey is the context key under which a transport that can send a
// response before it is complete offers its Streamer: the parent context
// it hands the engine answers Value(StreamKey{}) with one (a nil
// interface where it cannot, such as Content-Length and len32 framings).
// The engine asks only when a handler takes its dispatch.ResultWriter.
type StreamKey struct{}

// StreamSource is what offers a connection's calls a Streamer
// (Conn.SetStreamer): an interface rather than a func, so that the
// transport hands itself over without a method value (16 bytes of every
// connection).
type StreamSource interface {
	// Streamer returns a Streamer for the call that asks, or nil when the
	// connection cannot send a message in pieces at that moment (its
	// framing needs the length first).
	Streamer() Streamer
}

// Streamer takes one response in pieces, for a call whose handler writes
// its result with a dispatch.ResultWriter. The engine calls Piece with
// the response's bytes in order (the first call carries its beginning,
// `{"jsonrpc":"2.0","id":...,"result":`) and then End once. b is valid
// only during the call. Calls for one response come from one goroutine;
// a Streamer shared by a connection's calls orders them itself (one
// response's pieces are never interleaved with other output).
type Streamer interface {
	// Piece writes b, the next bytes of the response; first says that
	// it is the first call for this response. It blocks while the
	// connection's output is full and fails once the connection can no
	// longer be written (the client went away).
	Piece(b []byte, first bool) error
	// End ends the response begun with Piece. ok: b is its last bytes
	// and the response is complete. !ok: the handler failed after bytes
	// went out, so the message cannot be completed; the transport makes
	// sure the client cannot take what it got for a whole answer (an
	// HTTP chunked body without its last chunk, a closed connection, a
	// WebSocket close 1011) and b is nil.
	End(b []byte, ok bool)
}

// Detacher is a Streamer that can write a response's pieces only after
// the goroutine that called the engine returned (fasthttp writes a body
// after its handler returns). For it the engine runs a call of a
// dispatch.Method with Streams on a goroutine of its own and returns from
// Process without a response as soon as the first piece is handed to
// Piece (which then waits until the transport reads it); the transport
// tells that case by its Streamer having been given a piece. A call that
// ends before its first piece is answered by Process as usual.
type Detacher interface {
	Streamer
	// Detached is called on the call's goroutine when its first piece
	// is coming, before the caller returns: from then on the transport
	// sends the response's pieces itself.
	Detached()
}
