package mcp

// NOTE: a call is one request as the MCP handlers see it, pooled. It is the
// context a tool runs under: it carries the request's session (for
// cancellation and the negotiated revision), its progress token and, on
// HTTP, the request's event stream, and it is cancelled on its own
// (notifications/cancelled) without allocating: its Done channel is made
// only when someone asks for it. On HTTP the endpoint makes the call before
// the engine runs the message and the handlers find it in their context;
// on a stream transport (stdio) the handler that needs one makes it. The
// HTTP side of a call (its stream, its answer) is package mcphttp's, tr.

import (
	"bytes"
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/pool"
	"github.com/jetrpc/jetrpc/internal/rpcmsg"
	"github.com/jetrpc/jetrpc/mcp/internal/seam"
)

func getBuf() *pool.Buffer  { return pool.GetBuffer() }
func putBuf(b *pool.Buffer) { pool.PutBuffer(b) }

type callKey struct{}

// call is one request being served.
type call struct {
	parent  context.Context
	srv     *Server
	sess    *session // nil: stateless
	modern  bool     // served as revision Modern
	version string   // the revision it is served as
	token   []byte   // raw progressToken, nil: none
	tokbuf  []byte   // token's storage, kept across uses
	id      []byte   // raw request id (a copy)
	hash    uint64   // of id, for the session's table
	next    *call    // in the session's table
	listed  bool     // in the session's table

	ran     bool    // a tool's handler was reached (its arguments bound)
	result  *Result // a tool's result, on its way out
	scratch []byte

	meta  callMeta  // what a Modern request's _meta declares (stateless.go)
	input inputCall // its input requests (inputrequired.go)

	taskOK  bool  // RunTask may make a task of it (task.go)
	taskReq bool  // its tool requires a task
	task    *task // the task RunTask made of it; on a task's own call, that task

	mu        sync.Mutex
	done      chan struct{} // made by Done
	cancelled bool
	stop      func() bool    // the AfterFunc that forwards the parent's end
	after     sync.WaitGroup // the AfterFunc, until it has run or been stopped

	tr seam.CallTransport // the HTTP side (package mcphttp); nil on stream transports
	// ident is who made the request, when its transport says (mcphttp);
	// else the parent's identity is the caller's.
	ident auth.Binding
}

var _ context.Context = (*call)(nil)

// callOf returns the call ctx belongs to, or nil.
func callOf(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

func (s *Server) getCall(parent context.Context) *call {
	c := s.calls.Get().(*call)
	c.parent, c.srv = parent, s
	return c
}

// putCall returns c to the pool; nothing may use it afterwards.
func (s *Server) putCall(c *call) {
	if c.stop != nil && c.stop() {
		c.after.Done() // it will not run
	}
	// An AfterFunc that started must be done with c before c is reused.
	c.after.Wait()
	scratch, tokbuf, id := c.scratch[:0], c.tokbuf[:0], c.id[:0]
	if cap(scratch) > 64<<10 {
		scratch = nil
	}
	*c = call{scratch: scratch, tokbuf: tokbuf, id: id}
	s.calls.Put(c)
}

func (c *call) Deadline() (time.Time, bool) { return c.parent.Deadline() }

// Done returns a channel closed when the call is cancelled or its parent
// ends; it is made on first use.
func (c *call) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.cancelled {
			close(c.done)
		} else if c.parent.Done() != nil {
			c.after.Add(1)
			c.stop = context.AfterFunc(c.parent, func() { defer c.after.Done(); c.cancel() })
		}
	}
	return c.done
}

func (c *call) Err() error {
	c.mu.Lock()
	cancelled := c.cancelled
	c.mu.Unlock()
	if cancelled {
		return context.Canceled
	}
	return c.parent.Err()
}

func (c *call) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return c
	}
	if auth.IsIdentityKey(key) && c.ident.Identity() != nil {
		return &c.ident
	}
	return c.parent.Value(key)
}

// cancel cancels the call (notifications/cancelled, a lost stateless
// stream); it reports whether it was the first to.
func (c *call) cancel() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancelled {
		return false
	}
	c.cancelled = true
	if c.done != nil {
		close(c.done)
	}
	return true
}

func (c *call) isCancelled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancelled
}

// setToken copies the request's progress token (nil: none).
func (c *call) setToken(tok []byte) {
	if tok == nil {
		c.token = nil
		return
	}
	c.tokbuf = append(c.tokbuf[:0], tok...)
	c.token = c.tokbuf
}

// setID copies the request's id and its hash for the session's table.
func (c *call) setID(id []byte) {
	c.id = append(c.id[:0], id...)
	c.hash = hashID(id)
}

func hashID(id []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, b := range id {
		h = (h ^ uint64(b)) * 1099511628211
	}
	return h
}

// ErrNoStream: the call cannot send to the client (a context that is not a
// call's, or one whose transport has no way back).
var ErrNoStream = dispatch.ErrNoPeer

// Progress sends notifications/progress for the call of ctx, when the
// client asked for it (_meta.progressToken); else it does nothing. total
// <= 0 and an empty message are left out. Progress must increase from one
// notification to the next.
func Progress(ctx context.Context, progress, total float64, message string) error {
	c := callOf(ctx)
	if c == nil || c.token == nil {
		return nil
	}
	b := getBuf()
	b.B = append(append(b.B, `{"progressToken":`...), c.token...)
	b.B = strconv.AppendFloat(append(b.B, `,"progress":`...), progress, 'g', -1, 64)
	if total > 0 {
		b.B = strconv.AppendFloat(append(b.B, `,"total":`...), total, 'g', -1, 64)
	}
	if message != "" {
		b.B = encode.AppendString(append(b.B, `,"message":`...), message)
	}
	b.B = append(b.B, '}')
	err := c.notify("notifications/progress", b.B)
	putBuf(b)
	return err
}

// Notify sends a notification about the call of ctx (a log message, say)
// on the call's own stream, params encoded as encoding/json would (nil
// leaves them out). Notifications sent before the tool returns arrive
// before its result, in order.
func Notify(ctx context.Context, method string, params any) error {
	raw, err := rpcmsg.MarshalParams(params, dispatch.ErrPeerParams)
	if err != nil {
		return err
	}
	return NotifyRaw(ctx, method, raw)
}

// NotifyRaw is Notify with params as raw JSON (an object, or empty).
func NotifyRaw(ctx context.Context, method string, params []byte) error {
	c := callOf(ctx)
	if c == nil {
		return ErrNoStream
	}
	return c.notify(method, params)
}

func (c *call) notify(method string, params []byte) error {
	if c.isCancelled() {
		return context.Canceled // nothing more is sent about a cancelled call
	}
	return dispatch.PeerOf(c).NotifyRaw(c, method, params)
}

// CallClient calls the client (sampling/createMessage, elicitation/create,
// roots/list) on the stream of the call of ctx and decodes the result into
// result, as dispatch.Peer.Call does. It fails with dispatch.ErrOneWay
// where the client cannot answer: a stateless or Modern request (which
// asks for input through its result instead), or an Inline tool on HTTP.
// Ask asks on every revision.
func CallClient(ctx context.Context, method string, params, result any) error {
	c := callOf(ctx)
	if c == nil {
		return ErrNoStream
	}
	if c.modern || c.sess == nil || c.inline() {
		return dispatch.ErrOneWay
	}
	return dispatch.PeerOf(c).Call(c, method, params, result)
}

// CloseSSEStream closes the connection of the HTTP event stream of the
// call of ctx without ending the stream (2025-11-25's polling): the client
// reconnects after the stream's retry interval with Last-Event-ID and gets
// what was sent meanwhile, then the rest. It reports whether it did: not
// on stdio, for a stateless or Modern request, or a session of a revision
// before 2025-11-25 (which the server must not leave before the result).
// A call that had answered nothing yet starts its event stream first.
func CloseSSEStream(ctx context.Context) bool {
	c := callOf(ctx)
	return c != nil && c.tr != nil && c.tr.CloseStream()
}

// ProtocolVersion returns the protocol revision the call of ctx is served
// as ("" outside a call).
func ProtocolVersion(ctx context.Context) string {
	if c := callOf(ctx); c != nil {
		return c.version
	}
	return ""
}

// SessionID returns the Mcp-Session-Id of the call of ctx ("" without an
// HTTP session).
func SessionID(ctx context.Context) string {
	if c := callOf(ctx); c != nil && c.sess != nil {
		return c.sess.id
	}
	return ""
}

// inflight is a session's table of its calls in progress, by request id,
// for notifications/cancelled. Entries are chained by hash, so adding one
// allocates nothing once the map has grown.
type inflight struct {
	mu    sync.Mutex
	calls map[uint64]*call
	n     atomic.Int32
}

func (t *inflight) add(c *call) {
	t.mu.Lock()
	if t.calls == nil {
		t.calls = map[uint64]*call{}
	}
	c.next = t.calls[c.hash]
	t.calls[c.hash] = c
	c.listed = true
	t.mu.Unlock()
	t.n.Add(1)
}

func (t *inflight) remove(c *call) {
	if !c.listed {
		return
	}
	t.mu.Lock()
	head := t.calls[c.hash]
	switch {
	case head == c && c.next == nil:
		delete(t.calls, c.hash)
	case head == c:
		t.calls[c.hash] = c.next
	default:
		for p := head; p != nil; p = p.next {
			if p.next == c {
				p.next = c.next
				break
			}
		}
	}
	c.next, c.listed = nil, false
	t.mu.Unlock()
	t.n.Add(-1)
}

// cancel cancels the call of raw id; false when none is in progress.
func (t *inflight) cancel(id []byte) bool {
	h := hashID(id)
	t.mu.Lock() // held: a call leaves the table before it is recycled
	defer t.mu.Unlock()
	for p := t.calls[h]; p != nil; p = p.next {
		if bytes.Equal(p.id, id) {
			return p.cancel()
		}
	}
	return false
}

// cancelAll cancels every call in progress (the session ended).
func (t *inflight) cancelAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range t.calls {
		for ; p != nil; p = p.next {
			p.cancel()
		}
	}
}
