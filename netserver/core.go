package netserver

// NOTE: the connection core, one for every transport (stream.go: TCP and
// stdio; package nethttp's WebSocket connections and event streams, through
// host.go); doc.go tells
// how a message flows through it. A transport reads messages (if it reads
// at all), hands each to handle, and plugs its framing and its writes in
// through the transport interface. Here:
//
//   - Output: the reader answers cheap messages into c.local and moves it
//     into the shared c.out whenever it is about to block or c.local is
//     large; tasks, the peer's sends and control frames append to c.out
//     under c.mu. The flusher (whoever finds output and nobody writing)
//     writes it without the lock, looping until c.out stays empty: the
//     write combining of internal/coalesce, which the client shares; the
//     core adds its pending bytes and its wake-ups around each write
//     (Written).
//   - Backpressure: the reader checks the bounds with atomic loads only
//     (room) and otherwise waits on c.cond (pause), which tasks and flushers
//     signal; senders to the peer wait there too.
//   - The end: a write error is sticky (c.werr): output is dropped from then
//     on, the handlers are cancelled and the connection dropped, which
//     unblocks the reader. drain and finish wait for the tasks in flight and
//     the last write; release gives the pooled buffers back.

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/coalesce"
	"github.com/jetrpc/jetrpc/internal/engineconn"
	"github.com/jetrpc/jetrpc/internal/pool"
	"github.com/jetrpc/jetrpc/internal/rawio"
)

// transport is what a transport plugs into its core.
type transport interface {
	// begin starts a frame at the end of b: it returns b with the frame's
	// prefix (or room for it) appended, and where the frame begins.
	begin(b []byte) (out []byte, mark int)
	// end completes the frame begun at b[mark], whose payload follows the
	// prefix, and returns the slice holding it.
	end(b []byte, mark int) []byte
	// write writes b, whole frames, to the connection; c.mu is not held.
	write(b []byte) error
	// interrupt unblocks a read in progress, leaving writes possible; c.mu
	// is held.
	interrupt()
	// drop closes the connection at once (a write failed, or Shutdown gave
	// up); c.mu is held.
	drop()
}

// limits is what every connection of a server takes from Options.
type limits struct {
	sec          *sec // authentication, Origin policy, per-client limits (auth.go)
	maxInFlight  int32
	maxPending   int64
	readTimeout  time.Duration
	idleTimeout  time.Duration
	writeTimeout time.Duration
	log          *slog.Logger
	obs          Observer                              // nil: none (observe.go)
	connCtx      func(context.Context) context.Context // Options.ConnContext
	methods      map[Transport]*dispatch.MethodSet     // Options.Methods

	// testHookPending, when set, sees a connection's pending bytes each
	// time they grow.
	testHookPending func(pending int64)
}

func newLimits(opts *Options) limits {
	return limits{
		sec:          newSec(opts),
		maxInFlight:  int32(min(opts.maxInFlight(), 1<<30)),
		maxPending:   int64(opts.maxPending()),
		readTimeout:  opts.readTimeout(),
		idleTimeout:  opts.idleTimeout(),
		writeTimeout: opts.writeTimeout(),
		log:          opts.logger(),
		obs:          opts.observer(),
		connCtx:      opts.or().ConnContext,
		methods:      opts.or().Methods,
	}
}

// flushAt is the size of c.local at which the reader hands its responses over
// to be written even though more input is buffered.
const flushAt = 64 << 10

// core is the part of a connection every transport shares.
type core struct {
	lim *limits
	dc  *engineconn.Conn
	t   transport
	nc  net.Conn // for the logs (nil: stdio, SSE)
	// gate admits messages (authentication, rate limits: auth.go); nil:
	// every message is handled.
	gate *gate

	local []byte // the reader's output, not yet moved to out

	mu   sync.Mutex
	cond sync.Cond
	// out is the output waiting to be written (out.Out). Its two arrays
	// and local's come from outBuffers and go back there (release).
	out  coalesce.Queue
	werr error // sticky: the connection can no longer be written
	// lastDone is when the last task ended, on the monotonic clock
	// (since clockStart): a time.Time would take 24 bytes of every
	// connection, and idle connections are counted in bytes.
	lastDone time.Duration
	queue    []*task // ordered tasks; queue[qhead:] wait
	qhead    int32
	senders  int32 // senders to the peer waiting on cond
	setAt    int32 // index in its connSet (conns.go); under the set's mu
	ordered  orderedRunner

	via      Transport // for the observer
	held     bool      // output is kept until the transport can write (SSE)
	waiting  bool      // the reader (or finish) waits on cond
	sealed   bool      // a last frame (a close frame) is queued: nothing may follow
	late     bool      // drain's time ran out: answers still to come are dropped
	ended    bool      // finish is done; stop and abort do nothing
	qrunning bool

	stopping atomic.Bool  // Shutdown asked to stop reading; set under mu
	inflight atomic.Int32 // tasks submitted or queued, not yet done
	pending  atomic.Int64 // bytes in out or being written, and of tasks' messages
	inputs   atomic.Int64 // of pending, the bytes of tasks' messages

	// wdl is the write deadline set (writeChunks); the flusher's.
	wdl time.Duration
	// raw reads and writes the socket with raw system calls (rawio): the
	// flusher's for writing without waiting (forward.go), made at its first
	// such write (rawTried); a TCP connection's reader's too, made with the
	// connection (newConn). nil: the connection cannot (TLS, stdio).
	raw      *rawio.Conn
	rawTried bool
	// released: the buffers went back (release); under mu. A Flush left
	// to later by an async forward's answer then finds nothing to do.
	released bool
}

// clockStart is the origin of core.lastDone.
var clockStart = time.Now()

// init readies c for a new connection over t, of transport via, whose
// handlers run under a context derived from parent, and takes its pooled
// buffers. oneWay peers take notifications only.
func (c *core) init(lim *limits, e *dispatch.Engine, parent context.Context, t transport, via Transport, oneWay bool) {
	c.lim, c.t, c.via = lim, t, via
	c.cond.L = &c.mu
	c.ordered.c = c
	if lim.connCtx != nil || lim.methods != nil {
		if parent == nil {
			parent = e.Context()
		}
		if lim.methods != nil { // the transport's methods (nil: all), over a listener's
			parent = dispatch.WithMethodSet(parent, lim.methods[via])
		}
		if lim.connCtx != nil {
			parent = lim.connCtx(parent)
		}
	}
	c.dc = engineconn.NewConn(e, parent, c, oneWay) // c is the peer's engineconn.Sender (Send)
	c.initStreams()                                 // streamed results (result_stream.go)
	c.local = takeOutBuffer()
	c.out.Reset(takeOutBuffer(), takeOutBuffer())
}

// remote names the client in the logs.
func (c *core) remote() string {
	if c.nc == nil {
		return "stdio"
	}
	if a := c.nc.RemoteAddr(); a != nil {
		return a.String()
	}
	return ""
}

// release returns the pooled buffers; nothing may use c afterwards.
func (c *core) release() {
	c.dc.Close()
	c.gate.close()
	c.gate = nil
	c.mu.Lock() // an async forward's deferred Flush may still come (forward.go)
	c.released = true
	c.putQueueBuffersLocked()
	c.mu.Unlock()
	putOutBuffer(c.local)
	c.local = nil
}

// putQueueBuffersLocked gives out's arrays back to outBuffers (what they
// hold is dropped); no write may be using them. c.mu is held.
func (c *core) putQueueBuffersLocked() {
	out, spare := c.out.Buffers()
	putOutBuffer(out)
	putOutBuffer(spare)
}

// handle processes one message read: inline into c.local, or as a task.
// buffered: the message was read with no wait since the previous one.
func (c *core) handle(msg []byte, buffered bool) {
	if c.gate != nil && !c.admit(msg) {
		return
	}
	b, mark := c.t.begin(c.local)
	start := len(b)
	var routed engineconn.Routed
	if buffered {
		b, routed = c.dc.TryBuffered(b, msg)
	} else {
		b, routed = c.dc.Try(b, msg)
	}
	switch {
	case routed != nil:
		b = c.startTask(b[:mark], routed)
	case len(b) == start: // no response due
		b = b[:mark]
	default:
		b = c.t.end(b, mark)
	}
	c.local = b
}

// appendFramed appends msg to dst as one frame.
func (c *core) appendFramed(dst, msg []byte) []byte {
	b, mark := c.t.begin(dst)
	return c.t.end(append(b, msg...), mark)
}

// reader is what a transport that reads gives its core's readLoop.
type reader interface {
	// ready reports whether a whole message (or an error) is buffered, so
	// that next will not block.
	ready() bool
	// arm prepares a read that may block (its deadline).
	arm() error
	// next returns the next message to handle, or nil when what it read
	// was the transport's own (a control frame).
	next() ([]byte, error)
	// readError decides what an error of next means: nil to go on
	// reading, else the reason to stop.
	readError(err error) error
}

// readLoop reads and handles messages from r until reading must end, and
// returns why. Before a read that may block, or at the bounds, it hands its
// output over and waits for room (pause).
func (c *core) readLoop(r reader) error {
	defer c.dc.Rest()
	for {
		ready := r.ready()
		buffered := ready // read with no wait since the previous message (Conn.TryBuffered)
		if !ready || !c.room() {
			buffered = false
			c.dc.Rest()
			if err := c.pause(); err != nil {
				return err
			}
			if !ready {
				if err := r.arm(); err != nil {
					return err
				}
			}
		}
		msg, err := r.next()
		switch {
		case err != nil:
			if err = r.readError(err); err != nil {
				return err
			}
		case msg != nil:
			c.handle(msg, buffered)
		}
	}
}

// room reports whether the reader may take the next message at once.
func (c *core) room() bool {
	n := len(c.local)
	return n < flushAt && c.inflight.Load() < c.lim.maxInFlight &&
		c.pending.Load()+int64(n) < c.lim.maxPending && !c.stopping.Load()
}

// pause hands the local output over (flushing it unless someone else is
// writing) and waits until the bounds allow more work.
func (c *core) pause() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.local) > 0 {
		c.moveLocalLocked()
		c.flushLocked()
	}
	return c.waitRoomLocked()
}

// handoff moves the reader's local output to c.out and flushes it, unless
// another goroutine is writing (which then writes it too).
func (c *core) handoff() {
	if len(c.local) == 0 {
		return
	}
	c.mu.Lock()
	c.moveLocalLocked()
	c.flushLocked()
	c.mu.Unlock()
}

// waitRoomLocked waits until fewer than MaxInFlight tasks run and fewer
// than MaxPending bytes are held. It fails when the connection can no
// longer be written or Shutdown stopped it.
func (c *core) waitRoomLocked() error {
	for {
		switch {
		case c.werr != nil:
			return c.werr
		case c.stopping.Load():
			return errStopped
		case c.inflight.Load() < c.lim.maxInFlight && c.pending.Load() < c.lim.maxPending:
			return nil
		}
		c.waitLocked()
	}
}

func (c *core) waitLocked() {
	c.waiting = true
	c.cond.Wait()
	c.waiting = false
}

// Send queues msg, framed, for the client and flushes it (the peer's
// engineconn.Sender). It waits while MaxPending bytes are held, so a client
// that reads slowly slows the handler that notifies it; one that never reads
// is dropped after WriteTimeout, which fails the waiting senders. A send
// counts as activity for IdleTimeout.
func (c *core) Send(ctx context.Context, msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Only the output counts here: the tasks' messages are bounded where
	// they are read, and a handler whose own message is MaxPending bytes
	// or more must still be able to send.
	for c.open() && c.pending.Load()-c.inputs.Load() >= c.lim.maxPending {
		if err := ctx.Err(); err != nil {
			return err
		}
		c.senders++
		c.cond.Wait()
		c.senders--
	}
	if !c.open() {
		return dispatch.ErrPeerClosed
	}
	n := len(c.out.Out)
	c.out.Out = c.appendFramed(c.out.Out, msg)
	c.addPending(int64(len(c.out.Out) - n))
	c.lastDone = time.Since(clockStart)
	c.flushLocked()
	return nil
}

// writable reports whether more frames may be queued; open whether
// answers and messages to the peer may. c.mu must be held.
func (c *core) writable() bool { return c.werr == nil && !c.ended && !c.sealed }
func (c *core) open() bool     { return c.writable() && !c.late }

// queueRaw queues b, whole frames of the transport's own (a ping, a close
// frame), and flushes it; after a last frame nothing more is queued. It
// reports whether b was queued.
func (c *core) queueRaw(b []byte, last bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.writable() {
		return false
	}
	c.out.Out = append(c.out.Out, b...)
	c.addPending(int64(len(b)))
	c.sealed = last
	c.flushLocked()
	return true
}

// moveLocalLocked moves c.local into c.out, by swapping when c.out is empty.
func (c *core) moveLocalLocked() {
	n := len(c.local)
	switch {
	case !c.open():
		c.local = c.local[:0]
		return
	case len(c.out.Out) == 0:
		c.local, c.out.Out = c.out.Out, c.local
	default:
		c.out.Out = append(c.out.Out, c.local...)
		c.local = c.local[:0]
	}
	c.addPending(int64(n))
}

// appendOutLocked appends a task's framed response to c.out.
func (c *core) appendOutLocked(b []byte) {
	if len(b) == 0 || !c.open() {
		return
	}
	c.out.Out = append(c.out.Out, b...)
	c.addPending(int64(len(b)))
}

// addPending changes c.pending. A goroutine other than the reader that
// lowers it holds c.mu and wakes the reader; the reader needs no lock.
func (c *core) addPending(n int64) {
	p := c.pending.Add(n)
	if h := c.lim.testHookPending; h != nil && n > 0 {
		h(p)
	}
}

// flushLocked writes c.out unless another goroutine is writing, looping
// until c.out is empty. c.mu is held on entry and exit and released during
// each write, while the next output collects in the spare buffer.
func (c *core) flushLocked() {
	if c.out.Flushing() || c.held || len(c.out.Out) == 0 {
		return
	}
	if c.werr != nil {
		c.discardLocked()
		return
	}
	c.out.Flush(&c.mu, c)
}

// WriteOut writes b for the flusher (coalesce.Sink); c.mu is not held.
func (c *core) WriteOut(b []byte) error { return c.t.write(b) }

// Written gives back the pending bytes of a write, records its error and
// wakes the waiting (coalesce.Sink); it ends the flush once the connection
// can no longer be written, dropping what is queued. c.mu is held.
func (c *core) Written(n int, err error) bool {
	c.addPending(-int64(n))
	if err != nil {
		c.failLocked(err)
	}
	c.wake()
	if c.werr != nil {
		c.discardLocked()
		return false
	}
	return !c.held
}

// discardLocked drops the output not yet being written.
func (c *core) discardLocked() {
	if n := len(c.out.Out); n > 0 {
		c.out.Out = c.out.Out[:0]
		c.addPending(-int64(n))
	}
}

// failLocked records a write error: nothing more is written, handlers are
// cancelled and the connection is dropped, so that the reader ends.
func (c *core) failLocked(err error) {
	if c.werr != nil {
		return
	}
	c.werr = err
	c.discardLocked()
	c.dc.Cancel()
	level := slog.LevelDebug
	if errors.Is(err, os.ErrDeadlineExceeded) {
		level = slog.LevelInfo
		c.lim.observe(c.via, ConnWriteTimeout)
	}
	c.lim.log.Log(context.Background(), level, "netserver: write failed; dropping connection",
		"remote", c.remote(), "err", err)
	c.t.drop()
}

// wake tells a waiting reader (and senders to the peer) that the state
// changed. c.mu must be held.
func (c *core) wake() {
	switch {
	case c.senders > 0:
		c.cond.Broadcast()
	case c.waiting:
		c.cond.Signal()
	}
}

// stop makes the reader stop at the next message boundary (Shutdown).
func (c *core) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.stopping.Store(true)
	c.t.interrupt()
	c.wake()
}

// abort ends the connection at once (Shutdown's context ended): handlers
// are cancelled, the connection dropped, pending output discarded.
func (c *core) abort() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.stopping.Store(true)
	if c.werr == nil {
		c.werr = ErrServerClosed
	}
	c.discardLocked()
	c.dc.Cancel()
	c.t.drop()
	c.t.interrupt()
	c.wake()
}

// drain is the first step of the end, once reading has ended: no answer to
// a call to the peer can come any more; when the transport failed (not
// orderly) the handlers are cancelled, their work being lost anyway. It
// writes the reader's output and waits for the tasks in flight and their
// writes, or until the time limit (zero: none) is reached.
func (c *core) drain(orderly bool, limit time.Duration) {
	c.dc.ClosePeer()
	if !orderly {
		c.dc.Cancel()
	}
	c.handoff()
	c.mu.Lock()
	defer c.mu.Unlock()
	if limit > 0 {
		t := time.AfterFunc(limit, func() {
			c.mu.Lock()
			c.late = true // what is still running is dropped
			c.cond.Broadcast()
			c.mu.Unlock()
		})
		defer t.Stop()
	}
	for (c.inflight.Load() > 0 && !c.late) || c.out.Flushing() {
		c.waitLocked()
	}
	c.flushLocked()
}

// finish ends the connection after drain: it cancels what still runs,
// waits for it, and then nothing more is written (senders to the peer give
// up). The transport closes the connection and releases c afterwards.
func (c *core) finish() {
	c.dc.Cancel()
	c.mu.Lock()
	for c.inflight.Load() > 0 || c.out.Flushing() {
		c.waitLocked()
	}
	c.flushLocked()
	c.ended = true
	c.cond.Broadcast()
	c.mu.Unlock()
}

// idleFor reports whether c has had nothing in flight for d: no task, no
// output held and none finished within d.
func (c *core) idleFor(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inflight.Load() == 0 && c.pending.Load() == 0 && (c.lastDone == 0 || time.Since(clockStart)-c.lastDone >= d)
}

// maxKeptOutput caps the capacity of an output buffer kept in outBuffers or
// kept by a connection after a write.
const maxKeptOutput = coalesce.MaxKept

// outBuffers pools the connections' output arrays, each in a header
// (*pool.Buffer) that takeOutBuffer moves to outHeaders, so that a
// connection holds its arrays alone: three headers would be 72 bytes of
// every idle connection. Plain sync.Pools: bytebufferpool calibrates by the
// length at Put, and these arrays are always empty then.
var outBuffers, outHeaders sync.Pool

// takeOutBuffer returns an empty array from outBuffers, or nil.
func takeOutBuffer() []byte {
	h, _ := outBuffers.Get().(*pool.Buffer)
	if h == nil {
		return nil
	}
	b := h.B[:0]
	h.B = nil
	outHeaders.Put(h)
	return b
}

// putOutBuffer gives b's array to outBuffers, unless it has none or is
// larger than maxKeptOutput.
func putOutBuffer(b []byte) {
	if cap(b) == 0 || cap(b) > maxKeptOutput {
		return
	}
	h, _ := outHeaders.Get().(*pool.Buffer)
	if h == nil {
		h = new(pool.Buffer)
	}
	h.B = b[:0]
	outBuffers.Put(h)
}
