package netserver

// NOTE: the seam (package internal/seam) through which the HTTP side,
// package nethttp, uses what is netserver's: a Host per HTTP server (its
// limits, Health and WebSocket connections) and a hosted core per WebSocket
// connection or event stream, whose transport and reader live in nethttp.
// Nothing here is in netserver's documentation.

import (
	"context"
	"crypto/tls"
	"net"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver/internal/seam"
)

func init() {
	seam.Open = openHost
	seam.WithTLS = withTLS
	seam.WithTLSState = withTLSState
	seam.TLSSlot = func(ctx context.Context) (*tls.ConnectionState, bool) {
		if t, ok := ctx.(*tlsCtx); ok {
			return &t.st, !t.done
		}
		return nil, false
	}
	seam.Handshaken = func(ctx context.Context, st tls.ConnectionState) {
		if t, ok := ctx.(*tlsCtx); ok && !t.done {
			t.st, t.done = st, true
		}
	}
	seam.ListenTLS = listenTLS
	seam.LingerClose = lingerClose
	seam.LingerFailed = lingerFailed
	seam.CloseNow = closeNow
}

// host is an HTTP server's seam.Host.
type host struct {
	e      *dispatch.Engine
	lim    limits
	set    seam.Settings
	health *Health
	ws     connSet // open WebSocket connections
}

func openHost(e *dispatch.Engine, o any) seam.Host {
	opts, _ := o.(*Options)
	h := &host{e: e, lim: newLimits(opts), health: opts.health()}
	h.set = seam.Settings{
		MaxMessage: opts.maxMessage(), MaxConns: opts.maxConns(),
		ReadTimeout: opts.readTimeout(), IdleTimeout: opts.idleTimeout(), WriteTimeout: opts.writeTimeout(),
		DrainDelay: opts.drainDelay(), TLS: opts.tls(), Logger: opts.logger(), Guard: h.lim.sec.Guard,
	}
	return h
}

func (h *host) Settings() *seam.Settings                { return &h.set }
func (h *host) Ready() bool                             { return h.health.Ready() }
func (h *host) WaitDrain(ctx context.Context)           { h.health.waitDrain(ctx, h.set.DrainDelay) }
func (h *host) Track(c seam.Core) error                 { return h.ws.add(&c.(*hosted).core) }
func (h *host) Untrack(c seam.Core)                     { h.ws.remove(&c.(*hosted).core) }
func (h *host) CloseConns()                             { h.ws.close() }
func (h *host) ShutdownConns(ctx context.Context) error { return h.ws.shutdown(ctx) }
func (h *host) Pending() int64 {
	var n int64
	for _, c := range h.ws.snapshot() {
		n = max(n, c.pending.Load())
	}
	return n
}

func (h *host) OpenConns() int { return h.ws.len() }

func (h *host) NewCore(t seam.Transport, nc net.Conn, parent context.Context, via uint8, oneWay, held bool,
	id *auth.Identity) seam.Core {
	c := &hosted{x: t}
	c.nc = nc
	c.core.init(&h.lim, h.e, parent, c, Transport(via), oneWay)
	c.held = held
	if nc != nil {
		c.gate = h.lim.sec.newGate(Transport(via), nc.RemoteAddr(), nil, id)
	}
	return c
}

// hosted is a core whose transport and reader are another package's.
type hosted struct {
	core
	x  seam.Transport
	rd hostedReader
}

func (c *hosted) begin(b []byte) ([]byte, int)  { return c.x.Begin(b) }
func (c *hosted) end(b []byte, mark int) []byte { return c.x.End(b, mark) }
func (c *hosted) write(b []byte) error          { return c.x.Write(b) }
func (c *hosted) interrupt()                    { c.x.Interrupt() }
func (c *hosted) drop()                         { c.x.Drop() }

type hostedReader struct{ r seam.Reader }

func (r *hostedReader) ready() bool               { return r.r.Ready() }
func (r *hostedReader) arm() error                { return r.r.Arm() }
func (r *hostedReader) next() ([]byte, error)     { return r.r.Next() }
func (r *hostedReader) readError(err error) error { return r.r.ReadError(err) }

func (c *hosted) ReadLoop(r seam.Reader) error {
	c.rd.r = r
	return c.readLoop(&c.rd)
}

func (c *hosted) QueueRaw(b []byte, last bool) bool           { return c.queueRaw(b, last) }
func (c *hosted) Handoff()                                    { c.handoff() }
func (c *hosted) Cancel()                                     { c.dc.Cancel() }
func (c *hosted) Context() context.Context                    { return c.dc.Context() }
func (c *hosted) ProcessStream(msg []byte, each func([]byte)) { c.dc.ProcessStream(msg, each) }
func (c *hosted) Drain(orderly bool, limit time.Duration)     { c.drain(orderly, limit) }
func (c *hosted) Finish()                                     { c.finish() }
func (c *hosted) Release()                                    { c.release() }
func (c *hosted) Stopping() bool                              { return c.stopping.Load() }
func (c *hosted) IdleFor(d time.Duration) bool                { return c.idleFor(d) }
func (c *hosted) Remote() string                              { return c.remote() }

func (c *hosted) ArmRead(nc net.Conn, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping.Load() {
		return errStopped
	}
	return nc.SetReadDeadline(time.Now().Add(d))
}

func (c *hosted) WriteConn(nc net.Conn, b []byte) error {
	return writeChunks(nc, b, c.lim.writeTimeout, &c.wdl)
}

func (c *hosted) Unhold() {
	c.mu.Lock()
	c.held = false
	c.flushLocked()
	c.mu.Unlock()
}
