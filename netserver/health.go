package netserver

// NOTE: health and drain. A Health is one atomic flag (draining) and the
// moment it was set. The HTTP servers answer GET and HEAD of the health
// paths from it (healthFast for fasthttp, the handlers below for net/http);
// Shutdown drains it first and waits out DrainDelay, counted from that
// moment, before it closes anything, so that servers sharing one Health wait
// one delay together however their Shutdowns are called.

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Health is what a server's health endpoints report. The liveness endpoint
// (/healthz) answers 200 as long as the server answers at all; the readiness
// endpoint (/readyz) answers 200 until Drain is called, then 503, so that a
// load balancer or a Kubernetes readiness probe stops sending new work.
//
// The zero value is ready. Servers that share one Health (Options.Health)
// report and drain together: Shutdown of each drains it, and their drain
// delays are counted from the first Drain. A Health is safe for concurrent
// use.
type Health struct {
	draining atomic.Bool
	check    atomic.Pointer[func() error] // SetReadyCheck's
	mu       sync.Mutex
	since    time.Time // when Drain was first called
}

// Drain marks h as draining: readiness answers 503 from now on, and HTTP
// responses to calls ask their clients to close the connection. Only the
// first call counts; there is no way back.
func (h *Health) Drain() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.draining.Load() {
		h.since = time.Now()
		h.draining.Store(true)
	}
}

// Ready reports whether h is ready, that is not draining.
func (h *Health) Ready() bool { return !h.draining.Load() }

// SetReadyCheck adds a condition to the readiness endpoint: while check
// returns an error, /readyz answers 503 with the error's text (a gateway
// with no upstream to call). The server serves as before; only the probe
// changes. nil removes the check.
func (h *Health) SetReadyCheck(check func() error) {
	if check == nil {
		h.check.Store(nil)
		return
	}
	h.check.Store(&check)
}

// CheckReady returns the error of the SetReadyCheck condition (nil without
// one).
func (h *Health) CheckReady() error {
	if f := h.check.Load(); f != nil {
		return (*f)()
	}
	return nil
}

// waitDrain drains h and waits until delay has passed since the drain
// began, or until ctx ends.
func (h *Health) waitDrain(ctx context.Context, delay time.Duration) {
	h.Drain()
	if delay <= 0 {
		return
	}
	h.mu.Lock()
	left := time.Until(h.since.Add(delay))
	h.mu.Unlock()
	if left <= 0 {
		return
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
