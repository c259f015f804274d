package netserver

// NOTE: the WebSocket endpoint of HTTPServer. A GET /ws with the upgrade
// headers is upgraded (fasthttp/websocket's FastHTTPUpgrader) and the hijacked
// connection is served here: one reader goroutine (the hijack handler), one
// writer goroutine, the engine's workers for calls that may block. After
// the handshake the websocket package is not used: frames are read here with
// ws.Reader from the hijacked connection (which first hands out what
// fasthttp had buffered), messages are handed out of the reader's buffer
// without a copy, and the reader answers pings and close frames itself (see
// writeControl in ws_write.go).

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/frame/ws"
	"github.com/jetrpc/jetrpc/pool"
	"github.com/valyala/fasthttp"
)

// WebSocket endpoint of HTTPServer
//
// A GET /ws carrying the WebSocket upgrade headers is upgraded; any origin is
// accepted (CheckOrigin allows all: the endpoint has no cookies or ambient
// authority of its own to protect; put a proxy or a handler of your own in
// front to restrict origins). A GET /ws without the upgrade headers gets 405
// like every non-POST request. HTTPHandler (the net/http adapter) does not
// serve WebSocket: it answers 405 to GET /ws too.
//
// Each text (or binary) message is one JSON-RPC message or batch; each
// response is one text message. Calls are pipelined: cheap ones are answered
// at once on the reading goroutine, ones that may block run on the engine's
// workers, so responses may come out of order (match them by id).
// Notifications produce nothing. Ordered notifications (of non-concurrent
// methods that may block) run on the reading goroutine, in arrival order, so
// their handlers, like Inline ones, may Notify the client through
// dispatch.PeerOf(ctx) but not Call it (ErrOnReader). A
// message over Options.MaxMessage closes the connection with 1009 (message
// too big).
//
// Bounds and the policy when full: the responses waiting for the writer and
// the copies of the messages running on workers together hold at most about
// Options.MaxPending bytes (plus one message and its response), and at most
// Options.MaxInFlight messages run on workers at once. At either bound the
// connection stops reading from the client until the writer has sent some
// output or calls have finished (backpressure: TCP flow control then slows
// the client). Nothing is dropped while the client reads; a write that makes
// no progress for Options.WriteTimeout drops the connection, so a client that
// never reads is held to the bound and then disconnected. When all workers
// are busy a call gets -32001 "Server overloaded".
//
// The server pings every 30s (or IdleTimeout/2 when smaller); a client that
// sends nothing, not even a pong, for twice that is disconnected. Shutdown
// stops taking new calls (any that arrive get -32002), waits until the calls
// in flight are answered, sends a close frame 1001 (going away), waits for
// the client's close frame (at most wsCloseWait) and closes the connection.
// Shutdown waits for WebSocket connections like for HTTP requests.

const (
	wsPath      = "/ws"
	wsPingEvery = 30 * time.Second
	wsCloseWait = time.Second // for the peer's close frame after ours
	// wsLibBuf is the websocket package's read and write buffers, which
	// it allocates but which are never used: the frames are read and
	// written here.
	wsLibBuf = 128
)

var wsUpgrader = websocket.FastHTTPUpgrader{
	ReadBufferSize:  wsLibBuf,
	WriteBufferSize: wsLibBuf,
	CheckOrigin:     func(*fasthttp.RequestCtx) bool { return true },
}

// wsConfig is what WebSocket connections take from Options.
type wsConfig struct {
	maxMessage   int
	maxInFlight  int
	maxPending   int
	writeTimeout time.Duration
	ping         time.Duration
	log          *slog.Logger
}

func newWSConfig(opts *Options) wsConfig {
	ping := wsPingEvery
	if idle := opts.idleTimeout(); idle > 0 && idle/2 < ping {
		ping = idle / 2
	}
	return wsConfig{
		maxMessage:   opts.maxMessage(),
		maxInFlight:  opts.maxInFlight(),
		maxPending:   opts.maxPending(),
		writeTimeout: opts.writeTimeout(),
		ping:         ping,
		log:          opts.logger(),
	}
}

// isWS reports whether ctx asks to upgrade GET /ws.
func isWS(ctx *fasthttp.RequestCtx) bool {
	return ctx.IsGet() && bytes.Equal(ctx.Path(), []byte(wsPath)) && websocket.FastHTTPIsWebSocketUpgrade(ctx)
}

// serveWS upgrades the request; the connection is served on fasthttp's
// hijack goroutine, which closes it when serve returns.
func (s *HTTPServer) serveWS(ctx *fasthttp.RequestCtx) {
	err := wsUpgrader.Upgrade(ctx, func(wc *websocket.Conn) {
		c := &wsConn{
			s:     s,
			cfg:   &s.wsc,
			nc:    wc.NetConn(),
			wake:  make(chan struct{}, 1),
			rdone: make(chan struct{}),
			wdone: make(chan struct{}),
			done:  make(chan struct{}),
		}
		c.cond.L = &c.mu
		c.initPeer(s.ctx)
		defer c.endPeer()
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.writeClose(ws.CloseGoingAway, "")
			return
		}
		if s.ws == nil {
			s.ws = make(map[*wsConn]struct{})
		}
		s.ws[c] = struct{}{}
		s.mu.Unlock()
		c.serve()
		s.mu.Lock()
		delete(s.ws, c)
		s.mu.Unlock()
		close(c.done)
	})
	if err != nil {
		s.wsc.log.Debug("netserver: websocket upgrade failed", "remote", ctx.RemoteAddr(), "err", err)
	}
}

// shutdownWS makes every WebSocket connection go away once its calls are
// answered and waits until they are closed or ctx ends. s.closed must be set
// already, so that no connection registers afterwards.
func (s *HTTPServer) shutdownWS(ctx context.Context) error {
	s.mu.Lock()
	cs := make([]*wsConn, 0, len(s.ws))
	for c := range s.ws {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.goAway()
	}
	for _, c := range cs {
		select {
		case <-c.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// openWS returns the number of open WebSocket connections.
func (s *HTTPServer) openWS() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ws)
}

// wsConn is one WebSocket connection.
type wsConn struct {
	s    *HTTPServer
	cfg  *wsConfig
	nc   net.Conn  // fasthttp's hijacked connection (the handshake's ws.NetConn)
	rd   ws.Reader // the reader's
	ctl  []byte    // a control frame the reader writes
	wbuf []byte    // frames being written (the writer's)

	wmu       sync.Mutex  // one flush or control frame at a time
	closeSent atomic.Bool // nothing may be written after a close frame

	ctx    context.Context // the handlers' context: carries the peer
	rctx   context.Context // ctx marked as the reader's
	cancel context.CancelFunc
	peer   *dispatch.Peer

	mu       sync.Mutex
	cond     sync.Cond      // the reader waits here for room
	queue    []*pool.Buffer // responses for the writer, from qhead on
	qhead    int
	pending  int  // bytes in queue and in the messages running on workers
	inflight int  // messages running on workers
	closing  bool // Shutdown: answer what runs, then close with 1001
	handling bool // the reader is running a message
	dead     bool // the connection is ending: drop further output

	wake  chan struct{} // wakes the writer (capacity 1)
	rdone chan struct{} // the reader stopped
	wdone chan struct{} // the writer stopped
	done  chan struct{} // everything stopped
}

// handle runs one message.
func (c *wsConn) handle(msg []byte) {
	e := c.s.e
	c.mu.Lock()
	closing := c.closing
	c.handling = true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.handling = false
		c.mu.Unlock()
		c.signal()
	}()
	out := getWSBuf()
	if closing {
		out.B = e.Reject(out.B, msg, encode.CodeShuttingDown)
		c.push(out)
		return
	}
	var route dispatch.Route
	out.B, route = e.TryProcess(c.rctx, out.B, msg)
	switch route {
	case dispatch.RouteInline:
		c.push(out)
		return
	case dispatch.RouteOrdered: // in arrival order, on this goroutine
		out.B = e.ProcessContext(c.rctx, out.B, msg)
		c.push(out)
		return
	}
	t := wsTasks.Get().(*wsTask)
	t.c, t.out = c, out
	t.in = append(t.in[:0], msg...)
	c.mu.Lock()
	c.inflight++
	c.pending += len(msg)
	c.mu.Unlock()
	if e.Go(t) {
		return
	}
	c.mu.Lock()
	c.inflight--
	c.pending -= len(msg)
	c.mu.Unlock()
	t.c, t.out = nil, nil
	putWSTask(t)
	c.cfg.log.Warn("netserver: all workers busy; answering Server overloaded", "remote", c.nc.RemoteAddr())
	out.B = e.Reject(out.B, msg, encode.CodeOverloaded)
	c.push(out)
}

// push queues a response for the writer (an empty one is dropped).
func (c *wsConn) push(b *pool.Buffer) {
	if len(b.B) == 0 {
		putWSBuf(b)
		return
	}
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		putWSBuf(b)
		return
	}
	c.queue = append(c.queue, b)
	c.pending += len(b.B)
	c.mu.Unlock()
	c.signal()
}

// finish takes a worker's response and gives back its message's bytes.
func (c *wsConn) finish(resp *pool.Buffer, in int) {
	c.mu.Lock()
	c.inflight--
	c.pending -= in
	c.cond.Broadcast()
	c.mu.Unlock()
	c.push(resp)
	c.signal() // a closing writer waits for inflight to reach 0
}

func (c *wsConn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// goAway starts the close handshake once the calls in flight are answered.
func (c *wsConn) goAway() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.signal()
}

// wsTask is one message run on a worker.
type wsTask struct {
	c   *wsConn
	in  []byte       // a copy of the message
	out *pool.Buffer // its response
}

var wsTasks = sync.Pool{New: func() any { return new(wsTask) }}

func putWSTask(t *wsTask) {
	if cap(t.in) > maxKeptTask {
		t.in = nil
	}
	wsTasks.Put(t)
}

// Run processes the message and queues its response (pool.Task).
func (t *wsTask) Run() {
	c, in := t.c, len(t.in)
	out := t.out
	out.B = c.s.e.ProcessContext(c.ctx, out.B, t.in)
	t.c, t.out = nil, nil
	putWSTask(t)
	c.finish(out, in)
}

// Response buffers, owned by the queue until written.
var wsBufs = sync.Pool{New: func() any { return &pool.Buffer{B: make([]byte, 0, 512)} }}

func getWSBuf() *pool.Buffer { return wsBufs.Get().(*pool.Buffer) }

func putWSBuf(b *pool.Buffer) {
	if cap(b.B) > maxKeptTask {
		return
	}
	b.B = b.B[:0]
	wsBufs.Put(b)
}
