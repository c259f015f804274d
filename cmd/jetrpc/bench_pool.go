package main

// NOTE: "jetrpc bench" through package client: with --target A,B,C
// (several endpoints), --idempotent, --hedge-after or a credential flag,
// the load goes through a client.Pool instead of the raw load generator
// (bench/load), so that failover, hedging and credentials are measured.
// conns x pipeline goroutines each make one call (subtract [42,23], the
// "small" case) at a time for --duration; the report has today's fields
// and the pool's: retries, failovers, hedges.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/jetrpc/jetrpc/bench/compare"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/encode"
)

// poolBench is what the pool flags ask for.
type poolBench struct {
	targets    []string
	idempotent bool
	hedgeAfter time.Duration
	creds      client.Options // Header, Token
}

// poolReport is the report of a pool run: compare's fields for one
// "server", plus the pool's.
type poolReport struct {
	Transport string           `json:"transport"`
	Conns     int              `json:"conns"`
	Pipeline  int              `json:"pipeline"`
	Duration  float64          `json:"duration_s"`
	Mix       string           `json:"mix"`
	Servers   []poolServerStat `json:"servers"`
}

type poolServerStat struct {
	Name       string           `json:"name"`
	Addr       string           `json:"addr"`
	Requests   int64            `json:"requests"`
	Calls      int64            `json:"calls"`
	OK         int64            `json:"ok"`
	Errors     int64            `json:"errors"`
	Unanswered int64            `json:"unanswered"`
	Dropped    int64            `json:"dropped"`
	Failed     int64            `json:"failed"`
	Retries    uint64           `json:"retries"`
	Failovers  uint64           `json:"failovers"`
	Hedges     uint64           `json:"hedges"`
	HedgeWins  uint64           `json:"hedge_wins"`
	Elapsed    float64          `json:"elapsed_s"`
	ReqPerSec  float64          `json:"req_per_s"`
	Latency    compare.Latency  `json:"latency_us"`
	Endpoints  []poolEndpointSt `json:"endpoints"`
}

type poolEndpointSt struct {
	Addr   string `json:"addr"`
	OK     uint64 `json:"ok"`
	Failed uint64 `json:"failed"`
}

// dialPool dials every target (conns clients in all, spread over them,
// at most 64) and makes the pool.
func (pb *poolBench) dialPool(ctx context.Context, c *compare.Config) (*client.Pool, []string, error) {
	n := max(len(pb.targets), min(c.Conns, 64))
	opts := pb.creds
	opts.TLS = c.TLS
	opts.Framing = c.Framing
	opts.Reconnect = &client.Reconnect{MinDelay: 20 * time.Millisecond, MaxDelay: time.Second}
	var cs []*client.Client
	var addrs []string
	for i := range n {
		addr := pb.targets[i%len(pb.targets)]
		var cl *client.Client
		var err error
		switch c.Transport {
		case load.HTTP:
			cl, err = client.DialHTTP(benchURL("http", addr, "/"), &opts)
		case load.WS:
			cl, err = client.DialWebSocket(ctx, benchURL("ws", addr, "/ws"), &opts)
		default:
			cl, err = client.Dial(ctx, "tcp", addr, &opts)
		}
		if err != nil {
			for _, c := range cs {
				c.Close()
			}
			return nil, nil, fmt.Errorf("%s: %w", addr, err)
		}
		cs, addrs = append(cs, cl), append(addrs, addr)
	}
	popts := &client.PoolOptions{HedgeAfter: pb.hedgeAfter}
	if pb.idempotent {
		// Every call in flight on an endpoint that dies is retried at
		// once: the burst covers them.
		popts.Retry = &client.RetryPolicy{Idempotent: []string{"*"}, BudgetBurst: c.Conns*c.Pipeline + 10}
	}
	p, err := client.NewPool(cs, popts)
	return p, addrs, err
}

// benchURL makes a URL of a target given as host:port.
func benchURL(scheme, addr, path string) string {
	if strings.Contains(addr, "://") {
		return addr
	}
	return scheme + "://" + addr + path
}

// runPoolBench measures the pool and writes the report.
func runPoolBench(ctx context.Context, cfg *benchConfig, stdout, stderr io.Writer) int {
	c := &cfg.Config
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	p, addrs, err := cfg.pool.dialPool(dctx, c)
	cancel()
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc bench:", err)
		return 1
	}
	defer p.Close()
	if !c.NoWarmup {
		poolLoad(ctx, p, c, 300*time.Millisecond)
	}
	before := p.Stats()
	st := poolLoad(ctx, p, c, c.Duration)
	after := p.Stats()
	st.Name, st.Addr = "pool", strings.Join(cfg.pool.targets, ",")
	st.Retries, st.Failovers = after.Retries-before.Retries, after.Failovers-before.Failovers
	st.Hedges, st.HedgeWins = after.Hedges-before.Hedges, after.HedgeWins-before.HedgeWins
	for i, e := range after.Endpoints {
		st.Endpoints = append(st.Endpoints, poolEndpointSt{Addr: addrs[i], OK: e.OK - before.Endpoints[i].OK,
			Failed: e.Failed - before.Endpoints[i].Failed})
	}
	rep := &poolReport{Transport: c.Transport, Conns: c.Conns, Pipeline: c.Pipeline, Duration: c.Duration.Seconds(),
		Mix: "small (subtract [42,23])", Servers: []poolServerStat{st}}
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = rep.writeTable(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc bench:", err)
		return 1
	}
	if st.Failed > 0 {
		fmt.Fprintf(stderr, "jetrpc bench: pool: %d calls failed (errors %d, unanswered %d, dropped %d)\n",
			st.Failed, st.Errors, st.Unanswered, st.Dropped)
	}
	if st.OK == 0 {
		return 1
	}
	return 0
}

// poolLoad runs conns x pipeline callers for d and returns what they saw.
func poolLoad(ctx context.Context, p *client.Pool, c *compare.Config, d time.Duration) poolServerStat {
	var ok, errs, unanswered, dropped, failed atomic.Int64
	var mu sync.Mutex
	var all load.Histogram
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for range c.Conns * c.Pipeline {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var h load.Histogram
			dst := make([]byte, 0, 64)
			params := []byte(`[42,23]`)
			for time.Now().Before(stop) && ctx.Err() == nil {
				cctx, cancel := context.WithTimeout(ctx, c.Timeout)
				t0 := time.Now()
				_, err := p.CallRaw(cctx, dst[:0], "subtract", params)
				cancel()
				var re *encode.Error
				switch {
				case err == nil:
					ok.Add(1)
					h.Record(time.Since(t0))
					continue
				case errors.As(err, &re):
					errs.Add(1)
				case errors.Is(err, context.DeadlineExceeded):
					unanswered.Add(1)
				case errors.Is(err, client.ErrConnectionLost):
					dropped.Add(1)
				}
				failed.Add(1)
			}
			mu.Lock()
			all.Merge(&h)
			mu.Unlock()
		}()
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	us := func(q float64) float64 { return float64(all.Quantile(q)) / 1e3 }
	return poolServerStat{
		Requests: ok.Load() + errs.Load(), Calls: ok.Load() + failed.Load(), OK: ok.Load(), Errors: errs.Load(),
		Unanswered: unanswered.Load(), Dropped: dropped.Load(), Failed: failed.Load(), Elapsed: el,
		ReqPerSec: float64(ok.Load()) / el,
		Latency:   compare.Latency{P50: us(0.5), P90: us(0.9), P99: us(0.99), P999: us(0.999), Max: float64(all.Max()) / 1e3},
	}
}

func (rep *poolReport) writeTable(w io.Writer) error {
	fmt.Fprintf(w, "jetrpc bench: %s through client.Pool, %d conns x %d in flight, %s, %v\n\n",
		rep.Transport, rep.Conns, rep.Pipeline, rep.Mix, time.Duration(rep.Duration*float64(time.Second)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\treq/s\tp50\tp90\tp99\tp99.9\tmax\tok\terrors\tunanswered\tdropped\tfailed\tretries\thedges\t")
	for _, s := range rep.Servers {
		l := s.Latency
		fmt.Fprintf(tw, "%s\t%.0f\t%.0fµs\t%.0fµs\t%.0fµs\t%.0fµs\t%.0fµs\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", s.Name, s.ReqPerSec,
			l.P50, l.P90, l.P99, l.P999, l.Max, s.OK, s.Errors, s.Unanswered, s.Dropped, s.Failed, s.Retries, s.Hedges)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range rep.Servers {
		var eps []string
		for _, e := range s.Endpoints {
			eps = append(eps, fmt.Sprintf("%s %d ok %d failed", e.Addr, e.OK, e.Failed))
		}
		fmt.Fprintf(w, "\nendpoints: %s\nfailovers %d, hedges won %d of %d\n", strings.Join(eps, "; "), s.Failovers, s.HedgeWins, s.Hedges)
	}
	return nil
}
