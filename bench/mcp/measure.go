package mcpbench

import (
	"context"
	"errors"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Config is what one run measures.
type Config struct {
	Clients  int           // concurrent clients of the req/s run (64)
	Duration time.Duration // length of the req/s run, after a warm-up of a tenth of it
	Sessions int           // idle sessions opened (1,000; 2025-11-25 only)
	Progress int           // countdown calls timed (200)
}

// Throughput is the outcome of a req/s run.
type Throughput struct {
	Calls          int64
	Elapsed        time.Duration
	Mallocs, Bytes float64 // server-side allocations and bytes per call
}

// ReqPerSec is calls per second.
func (t Throughput) ReqPerSec() float64 { return float64(t.Calls) / t.Elapsed.Seconds() }

// RunThroughput has cfg.Clients clients call echo as fast as they can on
// p, and reads the server's allocations before and after.
func RunThroughput(ctx context.Context, p *Proc, version string, cfg Config) (Throughput, error) {
	conns := make([]*Conn, cfg.Clients)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	for i := range conns {
		conns[i] = &Conn{URL: p.URL, Version: version}
		if err := conns[i].Open(); err != nil {
			return Throughput{}, err
		}
	}
	if _, _, err := hammer(ctx, conns, cfg.Duration/10); err != nil { // warm-up
		return Throughput{}, err
	}
	m0, err := p.Mem(ctx, false)
	if err != nil {
		return Throughput{}, err
	}
	calls, elapsed, err := hammer(ctx, conns, cfg.Duration)
	if err != nil {
		return Throughput{}, err
	}
	m1, err := p.Mem(ctx, false)
	if err != nil {
		return Throughput{}, err
	}
	return Throughput{Calls: calls, Elapsed: elapsed,
		Mallocs: float64(m1.Mallocs-m0.Mallocs) / float64(calls),
		Bytes:   float64(m1.TotalAlloc-m0.TotalAlloc) / float64(calls)}, nil
}

// hammer runs every conn's echo loop for d and returns the calls made.
func hammer(ctx context.Context, conns []*Conn, d time.Duration) (int64, time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var calls atomic.Int64
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	start := time.Now()
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) && ctx.Err() == nil {
				if err := c.Echo("hello"); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
				calls.Add(1)
			}
		}()
	}
	wg.Wait()
	return calls.Load(), time.Since(start), first
}

// SessionMem is the memory that idle sessions hold, per session.
type SessionMem struct {
	RSS, Heap float64 // bytes
}

// RunSessions opens cfg.Sessions sessions (initialize and
// notifications/initialized, one after the other on one connection),
// leaves them idle, and returns the growth of the server's RSS and live
// heap (after a collection) per session.
func RunSessions(ctx context.Context, p *Proc, version string, cfg Config) (SessionMem, error) {
	c := &Conn{URL: p.URL, Version: version}
	defer c.Close()
	for range 16 { // warm-up: the connection, the code paths
		if err := c.Open(); err != nil {
			return SessionMem{}, err
		}
	}
	m0, err := p.Mem(ctx, true)
	if err != nil {
		return SessionMem{}, err
	}
	for range cfg.Sessions {
		if err := c.Open(); err != nil {
			return SessionMem{}, err
		}
	}
	m1, err := p.Mem(ctx, true)
	if err != nil {
		return SessionMem{}, err
	}
	n := float64(cfg.Sessions)
	return SessionMem{RSS: (float64(m1.RSS) - float64(m0.RSS)) / n,
		Heap: (float64(m1.HeapAlloc) - float64(m0.HeapAlloc)) / n}, nil
}

// RunProgress times cfg.Progress countdown calls (n=5), one after the
// other, to their first progress notification, after 20 untimed ones.
func RunProgress(ctx context.Context, p *Proc, version string, cfg Config) ([]time.Duration, error) {
	c := &Conn{URL: p.URL, Version: version}
	defer c.Close()
	if err := c.Open(); err != nil {
		return nil, err
	}
	var d []time.Duration
	for i := range 20 + cfg.Progress {
		t, err := c.Countdown(5)
		if err != nil {
			return nil, err
		}
		if i >= 20 {
			d = append(d, t)
		}
	}
	return d, nil
}

// Quantile returns the q quantile (0..1) of d, which it sorts.
func Quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	i := int(q * float64(len(d)-1))
	return d[i]
}

// ErrNoSessions: the stateless revision has no sessions to measure.
var ErrNoSessions = errors.New("no sessions on 2026-07-28")
