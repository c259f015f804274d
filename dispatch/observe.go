package dispatch

// NOTE: the observer hook. An Engine with Options.Observer set resolves
// one MethodObserver per registered method (and one for every unknown
// method) when it freezes its table and keeps it in the method's table
// entry; a call then costs a nil check on that entry, two clock reads and
// the observer's own work. A TimingObserver has only some calls timed: the
// others skip the clock, and a method the engine times anyway (cost.go)
// shares its reads with the observer. A CountingObserver (package metrics)
// has the calls it does not time counted by the engine itself, per CPU
// (internal/percpu), with no call through an interface: on two CPUs
// calling one method, atomic counters shared between them made a small
// call 4.7x its time unobserved, per-CPU ones 1.35x (BenchmarkObserveParallel).
// Without an observer every hook is one predictable branch on a nil field.
// Events (rejections, dropped responses, peer messages) are off the hot
// path.

import (
	"context"
	"errors"
	"math/bits"
	"math/rand/v2"
	"net"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/clock"
	"github.com/jetrpc/jetrpc/internal/percpu"
)

// Observer sees what an Engine does: the calls of each method, the
// messages, and the engine's events. Set it in Options.Observer; package
// metrics implements it with Prometheus, package accesslog with log/slog,
// and [Observers] combines several.
//
// Its methods are called concurrently from every goroutine that processes
// messages, so they must be safe for concurrent use and quick: count, do not
// block. Nothing they get may be kept after they return.
type Observer interface {
	// Method returns the observer of the calls of one method, or nil to
	// observe none. The engine calls it when it freezes its method table:
	// once for each registered method, and once with [UnknownMethod] for
	// the calls of every method it does not have, which all share that
	// observer (so a client cannot create new names).
	Method(name string) MethodObserver
	// Message is called once for each message processed (a single message
	// or a whole batch): in is its size in bytes, out the size of its
	// response (0 when none is due) and batch the number of members of a
	// batch (0 for a single message). A stream transport's messages
	// answered on the reading goroutine are counted there; the others
	// where they run.
	Message(in, out, batch int)
	// Event counts one event of the engine.
	Event(ev Event)
}

// MethodObserver sees the calls of one method (see Observer.Method).
type MethodObserver interface {
	// Begin is called when a call or notification of the method starts,
	// before its handler runs; ctx is the handler's context.
	Begin(ctx context.Context)
	// End is called when the handler returned (or, for an unknown
	// method, right after Begin), with the same ctx: [RequestID] and
	// [Meta] still hold the request's bytes, and [OriginOf] tells where it
	// came from.
	End(ctx context.Context, c CallEnd)
}

// TimingObserver is a MethodObserver that needs only some of its calls
// timed. The engine asks TimeEvery once, when it freezes its table: n > 1
// has it time every call of the method until it has timed 1024 of them
// (so that a method called now and then has all its calls timed), then
// one call in n (n rounded up to a power of two), chosen at random,
// passing the others to End untimed (CallEnd.Untimed; the timed ones of
// the one in n are CallEnd.Sampled, those of the first 1024 neither),
// which saves their two reads of the clock: on many machines the clock
// costs more than the rest of observing a call. n <= 1 times every call,
// as for a MethodObserver without the method.
// [Observers] combines observers that time every call.
type TimingObserver interface {
	MethodObserver
	TimeEvery() int
}

// CountingObserver is a TimingObserver whose calls the engine counts
// itself when it does not time them (the n-1 in n of TimeEvery, once the
// method has had its first 1024, all timed), in the CallCounts the
// observer gives it, instead of calling its Begin and End: most calls then
// cost two per-CPU adds and no call through an interface. Such a call adds
// 1 to the counts' started calls before its handler runs and, when it
// succeeds, 1 to their ended calls after; one that fails is passed to End
// (CallEnd.Untimed), which counts its end. A timed call goes to Begin and
// End as for any MethodObserver. So a CountingObserver's Begin and End
// should count in the same CallCounts (AddStarted, AddEnded), which then
// hold every call. Package metrics implements it.
type CountingObserver interface {
	TimingObserver
	// Counts returns the counts of the method's calls (nil: none, Begin and
	// End see every call). The engine asks once, when it freezes its table.
	Counts() *CallCounts
}

// CallCounts counts a method's calls begun and ended, per CPU (see
// CountingObserver): an add is a plain add to the current CPU's own
// cache line, reading sums them. It takes 64 bytes per CPU (GOMAXPROCS
// when made). Make it with NewCallCounts.
type CallCounts struct {
	c *percpu.Counters
}

// NewCallCounts returns counts at 0.
func NewCallCounts() *CallCounts { return &CallCounts{c: percpu.New(2)} }

// AddStarted counts a call begun.
func (c *CallCounts) AddStarted() { c.c.Add(0, 1) }

// AddEnded counts a call ended.
func (c *CallCounts) AddEnded() { c.c.Add(1, 1) }

// Started returns the calls counted begun.
func (c *CallCounts) Started() uint64 { return c.c.Load(0) }

// Ended returns the calls counted ended. Read it before Started for the
// calls in flight (Started - Ended), so that it is never over Started
// when both are counted concurrently.
func (c *CallCounts) Ended() uint64 { return c.c.Load(1) }

// UnknownMethod is the name Observer.Method is given for the methods the
// engine does not have (registering "" is an error, so no method has it).
const UnknownMethod = ""

// CallEnd is what a MethodObserver learns when a call ends.
type CallEnd struct {
	// Duration is how long the handler ran (0 for an unknown method, or
	// when Untimed).
	Duration time.Duration
	// Untimed marks a call the engine did not time, and Sampled one it
	// timed as the one in n (TimingObserver.TimeEvery) it chose at
	// random; only a TimingObserver that asked for n > 1 gets either, so
	// that a call Sampled stands for n calls (a call with neither, for
	// itself).
	Untimed, Sampled bool
	// Code is the outcome: 0 for a result, else the code of the error
	// response (for a notification: of the error that was not sent).
	Code encode.Code
	// Notification marks a notification (no response is sent).
	Notification bool
	// Params are the request's params as received (nil when absent),
	// valid only during End: copy what you keep.
	Params []byte
	// ResultSize is the bytes of the handler's result (0 for an error or
	// a notification).
	ResultSize int
}

// Event is something an engine counts outside the calls of its methods.
type Event uint8

// Events. The first ones are rejections: messages or calls refused by a
// limit.
const (
	// EventOverloaded: a message was refused because all workers were busy
	// (a transport rejected it with CodeOverloaded), once per message.
	EventOverloaded Event = iota
	// EventRejected: a message was refused with another code by a
	// transport (for example CodeShuttingDown).
	EventRejected
	// EventBatchTooLarge: a batch had more than MaxBatch members.
	EventBatchTooLarge
	// EventTooDeep: a message nested deeper than MaxDepth.
	EventTooDeep
	// EventResponseTooLarge: a batch member's response did not fit in
	// MaxBatchResponse.
	EventResponseTooLarge
	// EventTimeout: a call ran over CallTimeout.
	EventTimeout
	// EventParseError: a message that is not valid JSON (-32700).
	EventParseError
	// EventInvalid: a message or batch member that is not a valid Request
	// (-32600), including an empty batch.
	EventInvalid
	// EventDropped: a Response that no call of the server waited for
	// (dropped, never answered).
	EventDropped
	// EventPeerCall: a handler called its client (Peer.Call, Peer.CallRaw).
	EventPeerCall
	// EventPeerNotify: a handler notified its client (Peer.Notify,
	// Peer.NotifyRaw).
	EventPeerNotify
	// EventPeerReply: a handler answered its call early (Peer.Reply).
	EventPeerReply
	// EventLimitExceeded: a message was refused by a per-client limit
	// (CodeLimitExceeded: netserver's RateLimit), once per
	// message.
	EventLimitExceeded
	// NumEvents is the number of events, for arrays indexed by Event.
	NumEvents
)

var eventNames = [NumEvents]string{
	"overloaded", "rejected", "batch_too_large", "too_deep", "response_too_large", "timeout",
	"parse_error", "invalid", "dropped", "peer_call", "peer_notify", "peer_reply", "limit_exceeded",
}

// String returns the event's name in snake_case ("overloaded",
// "batch_too_large", ...), as metric labels use it.
func (ev Event) String() string {
	if ev < NumEvents {
		return eventNames[ev]
	}
	return "unknown"
}

// Observers returns an Observer that passes everything to each of obs in
// turn (nil ones are skipped).
func Observers(obs ...Observer) Observer {
	var m multiObserver
	for _, o := range obs {
		if o != nil {
			m = append(m, o)
		}
	}
	if len(m) == 1 {
		return m[0]
	}
	return m
}

type multiObserver []Observer

func (m multiObserver) Method(name string) MethodObserver {
	var ms multiMethod
	for _, o := range m {
		if mo := o.Method(name); mo != nil {
			ms = append(ms, mo)
		}
	}
	switch len(ms) {
	case 0:
		return nil
	case 1:
		return ms[0]
	}
	return ms
}

func (m multiObserver) Message(in, out, batch int) {
	for _, o := range m {
		o.Message(in, out, batch)
	}
}

func (m multiObserver) Event(ev Event) {
	for _, o := range m {
		o.Event(ev)
	}
}

type multiMethod []MethodObserver

func (m multiMethod) Begin(ctx context.Context) {
	for _, o := range m {
		o.Begin(ctx)
	}
}

func (m multiMethod) End(ctx context.Context, c CallEnd) {
	for _, o := range m {
		o.End(ctx, c)
	}
}

// CodeOf returns the code of the error response a handler's error becomes:
// the code of an *encode.Error (also wrapped), CodeTimeout for
// context.DeadlineExceeded, CodeShuttingDown for context.Canceled, else
// CodeInternalError; 0 for nil.
func CodeOf(err error) encode.Code {
	if err == nil {
		return 0
	}
	if re, ok := err.(*encode.Error); ok {
		return re.Code
	}
	_, code := classify(err)
	return code
}

// classify tells what a handler's error answers that is not itself an
// *encode.Error: the *encode.Error it wraps, or else the engine's
// condition it stands for (CodeTimeout, CodeShuttingDown), or
// CodeInternalError. CodeOf and appendHandlerError both decide by it.
func classify(err error) (*encode.Error, encode.Code) {
	var re *encode.Error
	switch {
	case errors.As(err, &re):
		return re, re.Code
	case errors.Is(err, context.DeadlineExceeded):
		return nil, encode.CodeTimeout
	case errors.Is(err, context.Canceled):
		return nil, encode.CodeShuttingDown
	}
	return nil, encode.CodeInternalError
}

// Origin tells where the messages processed under a context came from. A
// transport attaches it to the context it processes messages under
// ([WithOrigin]); observers, logs and middleware read it with [OriginOf].
type Origin struct {
	// Transport names the transport: "tcp", "stdio", "http", "ws", "sse"
	// (package netserver), or a transport's own name.
	Transport string
	// Remote is the client's address (nil when unknown, as for stdio).
	// The connection's TLS state, when it has TLS, is not here but in
	// netserver.TLSState(ctx), so that the engine does not link crypto/tls.
	Remote net.Addr
	// TraceParent and TraceState are the W3C trace-context headers
	// (traceparent, tracestate) of an HTTP request, empty without them.
	// They are valid while the message is processed.
	TraceParent, TraceState []byte
}

type originKey struct{}

// originCtx carries an Origin; one allocation holds both.
type originCtx struct {
	context.Context
	o Origin
}

func (c *originCtx) Value(key any) any {
	if _, ok := key.(originKey); ok {
		return &c.o
	}
	return c.Context.Value(key)
}

// WithOrigin returns a copy of parent that carries o.
func WithOrigin(parent context.Context, o Origin) context.Context {
	return &originCtx{Context: parent, o: o}
}

// OriginOf returns the Origin attached to ctx, or nil. It must not be
// changed.
func OriginOf(ctx context.Context) *Origin {
	o, _ := ctx.Value(originKey{}).(*Origin)
	return o
}

// observe reports ev to the engine's observer, if any.
func (e *Engine) observe(ev Event) {
	if e.obs != nil {
		e.obs.Event(ev)
	}
}

// observeMessage reports a message processed, if an observer is set.
func (e *Engine) observeMessage(in, out, batch int) {
	if e.obs != nil {
		e.obs.Message(in, out, batch)
	}
}

// resolveObservers gives each method of ms its observer, and the engine
// the one of unknown methods (Freeze; e.mu held).
func (e *Engine) resolveObservers(ms []*method) {
	if e.obs == nil {
		return
	}
	for _, m := range ms {
		m.obs = e.obs.Method(m.name)
		if to, ok := m.obs.(TimingObserver); ok {
			if n := to.TimeEvery(); n > 1 {
				m.timeMask = uint32(1)<<bits.Len32(uint32(min(n, 1<<30)-1)) - 1
			}
		}
		if co, ok := m.obs.(CountingObserver); ok && m.timeMask != 0 {
			m.counts = co.Counts() // only the calls not timed are counted there
		}
	}
	e.unknownObs = e.obs.Method(UnknownMethod)
}

// noTime is a clock read not made.
const noTime time.Duration = -1

// now reads the monotonic clock, never negative: the time-stamp counter
// where that is safe (internal/clock: 10 ns where time.Since takes 22),
// read once a call on a connection's reading goroutine (cost.go). Only
// differences of its readings mean anything, and one taken on another CPU
// can be a few ns behind: durations are clamped at 0.
func (e *Engine) now() time.Duration { return time.Duration(clock.Now()) }

// random returns 32 random bits for choosing the calls to time: an
// xorshift64 generator of cc's own (seeded from the runtime's when cc is
// made: see seed), a few instructions where the runtime's ChaCha8 takes 4
// ns a call; inlined.
func (cc *callCtx) random() uint32 {
	x := cc.rng
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	cc.rng = x
	return uint32(x >> 32)
}

// seed is a seed for callCtx.rng, never 0 (xorshift never leaves 0).
func seed() uint64 { return rand.Uint64() | 1 }

// warmCalls is how many calls of each method a TimingObserver has timed,
// all of them, before the engine times one in n: a method called now and
// then has all its calls timed.
const warmCalls = 1024

// observeUnknown reports a call of a method the engine does not have.
func (e *Engine) observeUnknown(cc *callCtx, m *decode.Message) {
	mo := e.unknownObs
	if mo == nil {
		return
	}
	u := &cc.unknown
	u.Context, u.name, u.id, u.meta = cc.parent, m.Method, m.ID, m.Meta
	mo.Begin(u)
	mo.End(u, CallEnd{Code: encode.CodeMethodNotFound, Notification: m.Kind == decode.Notification})
	*u = unknownCtx{}
}

// observeInvalid reports an Invalid Request (e.obs is set).
func (e *Engine) observeInvalid(r decode.Reason) {
	if r == decode.ReasonBatchLimit {
		e.obs.Event(EventBatchTooLarge)
		return
	}
	e.obs.Event(EventInvalid)
}

// observeReject reports a message refused with code (conn.Reject).
func (e *Engine) observeReject(code encode.Code) {
	switch code {
	case encode.CodeOverloaded:
		e.observe(EventOverloaded)
	case encode.CodeLimitExceeded:
		e.observe(EventLimitExceeded)
	default:
		e.observe(EventRejected)
	}
}

// observe counts a message the peer sent (err == nil).
func (p *Peer) observe(ev Event, err error) {
	if err == nil {
		p.e.observe(ev)
	}
}
