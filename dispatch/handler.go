package dispatch

import (
	"context"
	"time"

	"github.com/jetrpc/jetrpc/encode"
)

// Handler serves one method. ServeRPC gets the request's params as raw JSON
// (nil when absent; already validated) and returns the result's JSON.
//
// The result may be any slice, and it is answered right whatever it is:
//   - dst with the result appended: the fast path. dst is empty, and its
//     spare capacity is the response buffer right where the result goes,
//     so a result appended within that capacity is written in place and
//     costs no copy;
//   - dst grown past its capacity by append, a fresh slice of any length,
//     or the params slice itself: copied into the response;
//   - nil or empty: a null result.
//
// The result must be exactly one valid JSON value (whitespace around and
// inside it is fine): anything else is answered -32603 Internal error, never
// sent, and logged once a minute per method. The engine checks it with the
// scanner of package decode; a method whose handler guarantees valid JSON
// can skip that check with Method.TrustedResult ([Typed] handlers need no
// check, and the params returned as they came are valid already).
//
// To fail, return an error: an *encode.Error (see [NewError] and [Code.Err]) becomes
// that error object; any other error becomes -32603 Internal error. params and
// dst are valid only during the call: copy what you keep.
//
// ctx is the call's own. It carries the request's id, method and _meta
// ([RequestID], [MethodName], [Meta]) and is done when the call ends (as
// net/http cancels a request's context when its handler returns), when its
// connection fails, and when the engine shuts down. It may be kept: after
// the call it stays a valid context.Context, done, whose RequestID,
// MethodName and Meta are nil; it never shows another call's values. For
// work that outlives the call, [Detach] gives a context that is not done
// when the call ends and keeps the call's values.
type Handler interface {
	ServeRPC(ctx context.Context, params, dst []byte) ([]byte, error)
}

// HandlerFunc adapts a function to a Handler.
type HandlerFunc func(ctx context.Context, params, dst []byte) ([]byte, error)

// ServeRPC calls f.
func (f HandlerFunc) ServeRPC(ctx context.Context, params, dst []byte) ([]byte, error) {
	return f(ctx, params, dst)
}

var _ Handler = HandlerFunc(nil)

// Middleware wraps the handler of one method. It is applied once, when the
// method table is frozen, not per message.
type Middleware func(method string, next Handler) Handler

// Method describes one registered method.
type Method struct {
	// Name is the method name; names starting with "rpc." are reserved.
	Name string
	// Handler serves the method.
	Handler Handler
	// Inline marks a cheap, non-blocking handler: it always runs on the
	// caller's goroutine, a connection's reading goroutine too, also as a
	// batch member, to save a goroutine hand-off, and is never timed.
	//
	// Left false (the default, what Register does) the method may block
	// (I/O, locks, sleeps): the engine times its runs, and runs its calls
	// on a worker goroutine until it has proved quick (32 quick runs in a
	// row); from then on its calls run where they arrive, on a
	// connection's reading goroutine or a batch's, as fast as Inline ones,
	// each run timed. Two runs slower than 50 µs close together send the
	// method back to the workers (one alone, which a busy machine makes
	// now and then, does not), and each time the streak it needs to come
	// back doubles (up to 4096): a handler that starts blocking holds up
	// its connection for two runs at most each time it was learned. A
	// handler that always blocks is never learned. See also CallsPeer.
	Inline bool
	// CallsPeer says the handler may call its connection's peer
	// (Peer.Call, Peer.CallRaw): its calls always run on workers, never on
	// a reading goroutine, which must stay free to read the peer's answer.
	// A method whose handler calls the peer without it is marked so at its
	// first Peer.Call; that call fails with ErrOnReader if it ran on the
	// reader.
	CallsPeer bool
	// Streams says the handler writes its result with StreamResult and
	// may produce a large one. Its calls always run on workers, never on
	// a reading goroutine (which would wait while the result goes out);
	// on a transport that can send a response only after the goroutine
	// that read the request returns (the fasthttp server), a call runs
	// on a goroutine of its own, with its own copy of its id and params,
	// so that its result can go out as it is produced. Without Streams a
	// handler may still use StreamResult; there its result is held.
	Streams bool
	// Concurrent lets notifications of this method run out of arrival order.
	Concurrent bool
	// TrustedResult says the handler always returns exactly one valid
	// JSON value, so the engine skips checking its result (see Handler).
	// The check scans the result once more: about 1 ns a byte. A wrong
	// promise sends invalid JSON to the client.
	TrustedResult bool
	// Timeout bounds each call and notification of this method (0: the
	// engine's Options.CallTimeout, also when that is 0), as CallTimeout
	// does: its context is cancelled when the time is up and the caller
	// gets the engine's Timeout condition (-32003 by default), with
	// error.data naming this bound. It applies to an Inline method too.
	// A timed call allocates nothing more than another (a handler that
	// waits on its context's Done pays a timer); see docs/policy.md.
	Timeout time.Duration
	// Cost is what a call or notification of this method takes from its
	// client's rate bucket (netserver/guard's RateLimit; default and
	// minimum 1): give an expensive method more, as proxyd does for
	// eth_getLogs. A batch costs the sum of its members'; a call of an
	// unknown method costs 1.
	Cost int
	// StrictParams makes a [Typed] handler of a struct (or *struct) P
	// refuse named params with a member that fills no field of P (matched
	// as encoding/json matches names): -32602 with error.data
	// {"param":NAME,"error":"unknown member"}, as jrpc2's StrictFields;
	// by default such members are ignored, as encoding/json ignores them.
	// Options.StrictParams turns it on for every method. Other handlers
	// are unaffected.
	StrictParams bool
}

// CodeResponseTooLarge answers a batch member whose response would take the
// batch's response over Options.MaxBatchResponse.
const CodeResponseTooLarge = encode.CodeServerError

// NewError returns an error object with code, message and optional raw
// JSON data, for a handler to return: the one JSON-RPC error type of
// jetrpc is encode.Error (the client returns it too), and its codes are
// encode.Code. NewError is encode.NewError, named here for handlers.
func NewError(code encode.Code, message string, data []byte) *encode.Error {
	return encode.NewError(code, message, data)
}
