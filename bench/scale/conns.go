package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/frame"
)

// lines names the line server in the results; linesRaw the same with
// netserver's raw system calls (bench.LineServer.Raw).
const (
	lines    = "lines"
	linesRaw = "lines-raw"
)

// connResult is one server at one connection count in one round.
type connResult struct {
	Server     string  `json:"server"`
	Conns      int     `json:"conns"`
	Pipeline   int     `json:"pipeline"`
	Round      int     `json:"round"`
	ReqPerS    float64 `json:"req_per_s"`       // over the middle of the run (20% to 90%)
	CPUPerCall float64 `json:"cpu_ns_per_call"` // the server process's, over the same part
	RSS        int64   `json:"rss_bytes"`       // the most during that part
	RSSPerConn float64 `json:"rss_bytes_per_conn"`
	P50us      float64 `json:"p50_us"`
	P99us      float64 `json:"p99_us"`
	Failed     int64   `json:"failed"`
	Err        string  `json:"error,omitempty"`
}

// measureConns loads every server (a fresh process each time) and the line
// server with conns connections, rounds times, rotating their order.
func measureConns(ctx context.Context, servers []server, conns, pipeline int, d time.Duration, rounds int) []connResult {
	names := []string{lines, linesRaw}
	for _, s := range servers {
		names = append(names, s.name)
	}
	reqs, err := load.Mix("small")
	if err != nil {
		panic(err)
	}
	var out []connResult
	for r := range rounds {
		order := append(slices.Clone(names[r%len(names):]), names[:r%len(names)]...)
		for _, name := range order {
			if ctx.Err() != nil {
				return out
			}
			res := loadOne(ctx, servers, name, conns, pipeline, d, reqs)
			res.Round = r + 1
			fmt.Fprintf(os.Stderr, "conns %5d round %d %-8s %9.0f req/s %7.0f ns/call %7.0f B/conn %s\n",
				conns, r+1, name, res.ReqPerS, res.CPUPerCall, res.RSSPerConn, res.Err)
			out = append(out, res)
			time.Sleep(time.Second) // let the sockets of the run close
		}
	}
	return out
}

// sample is what the sampler saw at one moment of a run.
type sample struct {
	at   time.Time
	done int64 // requests settled
	u    usage
}

// loadOne starts the server named, loads it and stops it.
func loadOne(ctx context.Context, servers []server, name string, conns, pipeline int, d time.Duration, reqs []load.Request) connResult {
	res := connResult{Server: name, Conns: conns, Pipeline: pipeline}
	var p *proc
	var err error
	switch name {
	case lines, linesRaw:
		self, _ := os.Executable()
		p, err = start(ctx, self, false, "serve-"+name)
	default:
		i := slices.IndexFunc(servers, func(s server) bool { return s.name == name })
		if mode, self := strings.CutPrefix(servers[i].bin, ":"); self {
			exe, _ := os.Executable()
			p, err = start(ctx, exe, false, serveMode+mode)
		} else {
			p, err = start(ctx, servers[i].bin, false, "serve", "--tcp", "127.0.0.1:0", "--http", "")
		}
	}
	if err != nil {
		res.Err = err.Error()
		return res
	}
	defer p.stop()
	time.Sleep(300 * time.Millisecond)
	base, _ := p.read()

	var progress atomic.Int64
	var samples []sample
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				if u, err := p.read(); err == nil {
					samples = append(samples, sample{now, progress.Load(), u})
				}
			}
		}
	}()
	r, err := load.Run(ctx, load.Config{
		Addr: p.addr, Transport: load.TCP, Framing: frame.NDJSON, Conns: conns, Pipeline: pipeline,
		Duration: d, Requests: reqs, Timeout: 10 * time.Second, Progress: &progress,
	})
	close(stop)
	<-sampled
	if err != nil {
		res.Err = err.Error()
		return res
	}
	res.Failed = r.Failed()
	res.P50us = float64(r.Latency.Quantile(0.5).Microseconds())
	res.P99us = float64(r.Latency.Quantile(0.99).Microseconds())
	first := slices.IndexFunc(samples, func(s sample) bool { return s.done > 0 })
	last := len(samples) - 1
	for last > first && samples[last].done == samples[last-1].done {
		last-- // the run had ended
	}
	if first < 0 || last-first < 5 {
		res.Err = "too few samples under load"
		return res
	}
	span := samples[last].at.Sub(samples[first].at)
	from := nearest(samples, samples[first].at.Add(span/5))
	to := nearest(samples, samples[first].at.Add(span*9/10))
	a, b := samples[from], samples[to]
	if calls := b.done - a.done; calls > 0 {
		res.ReqPerS = float64(calls) / b.at.Sub(a.at).Seconds()
		res.CPUPerCall = float64(b.u.cpu-a.u.cpu) / float64(calls)
	}
	for _, s := range samples[from : to+1] {
		res.RSS = max(res.RSS, s.u.rss)
	}
	res.RSSPerConn = float64(res.RSS-base.rss) / float64(conns)
	return res
}

// nearest returns the index of the sample taken closest to t.
func nearest(samples []sample, t time.Time) int {
	best := 0
	for i, s := range samples {
		if s.at.Sub(t).Abs() < samples[best].at.Sub(t).Abs() {
			best = i
		}
	}
	return best
}
