package load

import (
	"context"
	"crypto/tls"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/frame"
)

// Transport names.
const (
	TCP  = "tcp"
	HTTP = "http"
	WS   = "ws"
)

// Config is one run. Duration or Count (or both) must bound it.
type Config struct {
	Addr      string     // host:port (WS: of the HTTP listener, path /ws; or a ws:// or wss:// URL)
	Transport string     // TCP (default), HTTP or WS
	Framing   frame.Kind // TCP only; Auto means NDJSON
	Conns     int        // connections (default 1)
	Pipeline  int        // calls in flight per connection (default 1)
	Duration  time.Duration
	Count     int64     // requests to send in all (calls and notifications)
	Requests  []Request // the mix; required
	// Timeout is how long a connection waits for an answer before it gives
	// up on the calls in flight (they count as Unanswered); default 5s. It
	// is also the write and dial timeout.
	Timeout time.Duration
	// Progress, when set, is advanced by the requests settled (answered or
	// sent notifications), for a live display.
	Progress *atomic.Int64
	// Reconnect (TCP and WS): when a connection ends before the run's
	// bound (the server closed it, say while it restarts), its calls in
	// flight count as Dropped and it is dialled again, for up to Timeout,
	// and the run goes on. Without it the connection's worker stops and
	// its calls count as Unanswered.
	Reconnect bool
	// TLS, when set, dials every connection over TLS with it: TCP, HTTPS,
	// and WSS (Addr may then be a wss:// URL). The handshake is not
	// measured: it happens before the first call (and on a reconnection).
	TLS *tls.Config
}

// Result is what a run measured.
type Result struct {
	Counts
	Elapsed time.Duration // from the first write to the last answer
	Latency Histogram     // per call, write to answer; notifications not included
}

// Done is the requests settled: calls answered plus notifications sent.
func (r *Result) Done() int64 { return r.OK + r.Errors + r.Notifications }

// Rate is Done per second of Elapsed.
func (r *Result) Rate() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Done()) / r.Elapsed.Seconds()
}

// run is the state the workers share.
type run struct {
	cfg      Config
	sched    []int
	start    time.Time
	deadline int64 // ns since start; 0: none
	left     atomic.Int64
	bounded  bool // Count set
	maxHoles int
	cleanup  func() // after the run, when set
}

func (r *run) now() int64 { return int64(time.Since(r.start)) }

// claim takes the next request for w to send; nil when the bound is hit.
// With a Count, requests follow the mix's cycle in the order they are
// claimed across all workers, so the mix of a counted run is exact; else
// each worker runs through the cycle from its own starting point.
func (r *run) claim(w *window, now int64) *Request {
	if r.deadline > 0 && now >= r.deadline {
		return nil
	}
	var i int
	if r.bounded {
		left := r.left.Add(-1)
		if left < 0 {
			return nil
		}
		i = int((r.cfg.Count - 1 - left) % int64(len(r.sched)))
	} else {
		i = w.pos
		if w.pos++; w.pos == len(r.sched) {
			w.pos = 0
		}
	}
	return &r.cfg.Requests[r.sched[i]]
}

func (r *run) progress(n int64) {
	if r.cfg.Progress != nil && n > 0 {
		r.cfg.Progress.Add(n)
	}
}

// Run runs cfg until its bound, then waits up to Timeout for the answers in
// flight. An error means the run could not start (bad config, no server);
// what went wrong once it ran is in the Result's counts.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Duration <= 0 && cfg.Count <= 0 {
		return nil, errors.New("load: a run needs a Duration or a Count")
	}
	if len(cfg.Requests) == 0 {
		return nil, errors.New("load: no requests")
	}
	cfg.Conns, cfg.Pipeline = max(cfg.Conns, 1), max(cfg.Pipeline, 1)
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Framing == frame.Auto {
		cfg.Framing = frame.NDJSON
	}
	r := &run{cfg: cfg, sched: schedule(cfg.Requests), bounded: cfg.Count > 0}
	r.left.Store(cfg.Count)
	for i := range cfg.Requests {
		r.maxHoles = max(r.maxHoles, cfg.Requests[i].Holes())
	}
	var workers []func(ctx context.Context, w *window) error
	var err error
	switch cfg.Transport {
	case "", TCP:
		workers, err = r.dialTCP(ctx)
	case HTTP:
		workers, err = r.httpWorkers()
	case WS:
		workers, err = r.dialWS(ctx)
	default:
		return nil, errors.New("load: unknown transport " + cfg.Transport)
	}
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	res := &Result{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var last atomic.Int64
	r.start = time.Now()
	if cfg.Duration > 0 {
		r.deadline = int64(cfg.Duration)
	}
	for i, work := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWindow(r.windowSize(), r.maxHoles)
			w.pos = i * 7 % len(r.sched) // workers start at different points of the mix
			work(ctx, w)
			w.finish()
			mu.Lock()
			res.Add(&w.counts)
			res.Latency.Merge(&w.hist)
			if w.last > last.Load() {
				last.Store(w.last)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if r.cleanup != nil {
		r.cleanup()
	}
	res.Elapsed = time.Duration(last.Load())
	return res, nil
}

// pastBound reports whether the run's bound (its Duration or Count) is hit.
func (r *run) pastBound() bool {
	return r.deadline > 0 && r.now() >= r.deadline || r.bounded && r.left.Load() <= 0
}

// keepGoing runs serve on c until it returns; with Reconnect, each time a
// connection ends before the run's bound, it counts the calls in flight as
// dropped, opens the next connection with dial (retrying for up to
// Timeout) and serves that one.
func keepGoing[C any](ctx context.Context, r *run, w *window, c C, dial func(context.Context) (C, error),
	serve func(context.Context, C, *window) error) error {
	for {
		err := serve(ctx, c, w)
		if err == nil || !r.cfg.Reconnect || ctx.Err() != nil {
			return err
		}
		w.drop()
		if r.pastBound() {
			return err
		}
		if c, err = redial(ctx, r.cfg.Timeout, dial); err != nil {
			return err
		}
		w.counts.Reconnects++
	}
}

// redial calls dial until it succeeds, ctx ends or timeout has passed,
// waiting a little longer after each failure.
func redial[C any](ctx context.Context, timeout time.Duration, dial func(context.Context) (C, error)) (C, error) {
	give := time.Now().Add(timeout)
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		c, err := dial(ctx)
		if err == nil || time.Now().After(give) {
			return c, err
		}
		select {
		case <-ctx.Done():
			return c, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// windowSize is the calls one worker keeps in flight: HTTP workers each
// carry one.
func (r *run) windowSize() int {
	if r.cfg.Transport == HTTP {
		return 1
	}
	return r.cfg.Pipeline
}
