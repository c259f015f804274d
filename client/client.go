package client

// NOTE: how the package is organised. client.go holds the Client and the
// calls; pending.go the entries of the pending table (internal/pending's,
// which says who completes an entry and when it can be reused); deliver.go
// what happens to each message received; stream.go and stdio.go the stream
// transport (write combining, one reader goroutine); ws.go the WebSocket
// transport (the same write combining, frames built in place); http.go the
// HTTP transport; batch.go batches. A transport only moves messages (the
// transport interface below).

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/pending"
	"github.com/jetrpc/jetrpc/internal/rpcmsg"
)

// Client calls a JSON-RPC 2.0 server. Create it with Dial, NewStdio,
// NewConn or DialHTTP; it is safe for concurrent use. Close it when done.
type Client struct {
	t            transport
	log          *slog.Logger
	handler      Handler
	cancelNotify bool
	max          int
	trace        TraceContextFunc // nil: no trace context sent (trace.go)
	token        TokenFunc        // nil: no credential (auth.go)
	retry        *retrier         // nil: every call sent once (retry.go)
	rc           *Reconnect       // nil: a lost connection closes the client (reconnect.go)
	state        atomic.Int32     // a State
	hooks        sync.WaitGroup   // OnReconnect hooks running

	nextID  atomic.Uint64
	dropped atomic.Uint64

	calls pending.Table // pending calls by id; closed with the client's error
	sinks sync.Map      // CallTo's calls by id: *resultSink (callto.go)
	done  chan struct{} // closed when calls is closed

	ctx     context.Context // handlers' context, cancelled with done
	cancel  context.CancelFunc
	inbound chan []byte   // server-initiated messages for the handler
	queued  atomic.Uint64 // messages put in inbound (by the reader)
	handled atomic.Uint64 // messages the handler has finished (sync.go)
	syncs   syncWaiters

	closeOnce sync.Once
	closeErr  error
}

// inboundQueue is how many server-initiated messages wait for the handler
// before the reader stops reading.
const inboundQueue = 64

// transport carries the messages of a Client.
type transport interface {
	// begin returns the buffer to append one message to, for the caller
	// alone until it calls send (on a stream it holds the write lock, so
	// that a call registered after begin is on the connection it is
	// written to). While a redialled connection is down it waits up to
	// ctx, or fails with ErrDisconnected at once when ctx is nil.
	begin(ctx context.Context) (*outMsg, error)
	// send sends the message appended to m.b since begin. ids are the
	// calls it carries; HTTP completes the ones its reply did not answer.
	// On a stream, send may return before the bytes are written by
	// another goroutine; a write error then closes the client.
	send(ctx context.Context, m *outMsg, ids []uint64) error
	// abort drops the message appended since begin, which is not sent
	// (its params could not be encoded), and releases what begin took.
	abort(m *outMsg)
	// close closes the connection after a short grace for queued bytes.
	close() error
	// stream reports whether the server can send messages of its own (and
	// receive the client's answers).
	stream() bool
}

// outMsg is a message being written: the message starts at b[start].
type outMsg struct {
	b     []byte
	mark  int // for frame.EndFrame
	start int
}

func newClient(t transport, opts *Options) *Client {
	c := &Client{
		t:            t,
		log:          opts.logger(),
		handler:      opts.handler(),
		cancelNotify: opts.cancelNotify(),
		max:          opts.maxMessage(),
		trace:        opts.traceContext(),
		token:        opts.token(),
		retry:        newRetrier(opts.retryPolicy()),
		done:         make(chan struct{}),
	}
	c.ctx, c.cancel = context.WithCancel(context.WithValue(context.Background(), handlerKey{}, c))
	if c.handler != nil && t.stream() {
		c.inbound = make(chan []byte, inboundQueue)
		go c.serveInbound()
	}
	return c
}

// CallRaw calls method with params, raw JSON: an array, an object, or empty
// to leave params out. The caller guarantees that params is valid JSON. It
// appends the raw JSON result to dst and returns the extended slice; on
// error it returns dst unchanged.
//
// A JSON-RPC error response is returned as an *encode.Error. When ctx ends
// first, the call is removed from the pending table and ctx.Err() returned.
// On a stream, and over HTTP with a context that cannot be cancelled,
// CallRaw allocates nothing in steady state.
func (c *Client) CallRaw(ctx context.Context, dst []byte, method string, params []byte) ([]byte, error) {
	if err := checkParams(params); err != nil {
		return dst, err
	}
	if err := ctx.Err(); err != nil {
		return dst, err
	}
	p := c.getCall()
	p.Dst = dst
	err := c.call(ctx, p, method, params, nil)
	res := p.Res
	putCall(p)
	if err != nil {
		return dst, err
	}
	return res, nil
}

// Call calls method with params and decodes the result into result.
//
// params is encoded into the request as encoding/json would encode it (HTML
// escaping off), by an encoder compiled once per type; nil, and a value
// that encodes to null, leaves params out; anything else must encode to a
// JSON array or object (a struct, a map, a slice, an array), else Call
// returns ErrParams. Pass a pointer (&v): a value that is not one is boxed
// by the caller. result is nil (the result is discarded) or a non-nil
// pointer, into which the result is decoded with encoding/json's semantics
// by a decoder compiled once per type; strings and slices in it are the
// caller's own (they do not alias any buffer of the client). Any other
// result is a *json.InvalidUnmarshalError before anything is sent. A type
// the compiled codecs do not support falls back to sonic (see below).
//
// With struct params passed by pointer and a result of numbers, bools and
// structs of them, Call allocates nothing in steady state on a stream (and
// over HTTP with a context that cannot be cancelled); a string or slice in
// the result costs its own allocation.
//
// A JSON-RPC error response is returned as an *encode.Error (use
// errors.As); a result that does not fit result is a decoding error (not an
// *encode.Error); see CallRaw for contexts.
//
// Fallback: a type that the compiled codecs reject goes to sonic (its
// Marshal or Unmarshal) for that type, decided once. For params that is a
// type holding chan, func, complex or unsafe.Pointer values or maps with
// keys other than strings, integers and TextMarshalers, which sonic refuses
// as well (an error); for results a type using the ",string" option, an
// embedded pointer to a struct or a non-empty interface, which sonic
// decodes.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	if err := rpcmsg.CheckResult(result); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p := c.getCall()
	p.Dst = p.buf[:0]
	err := c.call(ctx, p, method, nil, params)
	if err == nil {
		p.buf = p.Res[:0]
		err = rpcmsg.DecodeResult(p.Res, result)
	}
	putCall(p)
	return err
}

// Notify sends a notification: method with params (encoded as by Call,
// straight into the outgoing message). On a stream it returns once the
// message is queued for writing; a later write error closes the client.
// Over HTTP it returns when the server has accepted the POST.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m, err := c.t.begin(ctx)
	if err != nil {
		return err
	}
	if m.b, err = rpcmsg.AppendNotification(m.b, method, params, ErrParams); err != nil {
		c.t.abort(m)
		return err
	}
	m.b = c.traceMessage(ctx, m.b)
	return c.t.send(ctx, m, nil)
}

// Dropped returns the number of responses that matched no pending call
// (unknown ids, answers to calls whose context had ended) and were dropped.
func (c *Client) Dropped() uint64 { return c.dropped.Load() }

// Close closes the client: every pending call returns an error wrapping
// ErrClosed at once, messages already queued get a short grace to be
// written, then the connection is closed (NewStdio: the child's stdin is
// closed and the process waited for). Close returns the error of closing
// the connection; later calls return the same.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.fail(ErrClosed)
		c.closeErr = c.t.close()
		c.hooks.Wait()
	})
	return c.closeErr
}

// call sends the call p and waits for its answer, then, when the retry
// policy covers the method and the error, again (retry.go). On return p
// holds the answer, and its error is returned.
func (c *Client) call(ctx context.Context, p *call, method string, raw []byte, params any) error {
	if c.retry != nil {
		c.retry.budget.depositCall()
	}
	err := c.do(ctx, p, method, raw, params)
	if err == nil {
		err = p.Err
	}
	if err != nil && c.retry != nil {
		err = c.retryCall(ctx, p, method, raw, params, err)
	}
	return err
}

// do sends the call p and waits for its answer. The params are raw, or
// when params is not nil encoded from it straight into the message. When do
// returns nil, p.Res or p.Err holds the answer; otherwise p is no longer
// pending. Either way nobody else touches p afterwards.
func (c *Client) do(ctx context.Context, p *call, method string, raw []byte, params any) error {
	if err := c.send(ctx, p, method, raw, params); err != nil {
		return err
	}
	return c.wait(ctx, p)
}

// send registers the call p and sends it; on error p is not pending.
func (c *Client) send(ctx context.Context, p *call, method string, raw []byte, params any) error {
	m, err := c.t.begin(ctx)
	if err != nil {
		return err
	}
	if err := c.register(p); err != nil {
		c.t.abort(m)
		return err
	}
	if params == nil {
		m.b = encode.AppendRequest(m.b, p.idBytes(), method, raw)
	} else if m.b, err = rpcmsg.AppendRequest(m.b, p.idBytes(), method, params, ErrParams); err != nil {
		c.t.abort(m)
		c.settle(p)
		return err
	}
	m.b = c.traceMessage(ctx, m.b)
	if err := c.t.send(ctx, m, p.ids[:]); err != nil {
		c.settle(p)
		return err
	}
	return nil
}

// wait waits for the answer to p, or for ctx: then p is abandoned (unless
// the answer came meanwhile) and the server told, if asked for.
func (c *Client) wait(ctx context.Context, p *call) error {
	err := c.calls.Wait(ctx, p.id, &p.Call)
	if err != nil {
		c.sendCancel(p.idBytes())
	}
	return err
}

// sendCancel sends $/cancelRequest for id when Options.CancelNotify asks for
// it.
func (c *Client) sendCancel(id []byte) {
	if !c.cancelNotify || !c.t.stream() {
		return
	}
	var buf [32]byte
	params := append(append(append(buf[:0], `{"id":`...), id...), '}')
	m, err := c.t.begin(nil) // not while disconnected: the call was on the lost connection
	if err != nil {
		return
	}
	m.b = encode.AppendNotification(m.b, "$/cancelRequest", params)
	c.t.send(context.Background(), m, nil)
}

// checkParams checks that params is empty or starts like an array or an
// object.
func checkParams(params []byte) error { return rpcmsg.CheckParams(params, ErrParams) }
