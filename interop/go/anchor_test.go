package interop

import (
	"context"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// BenchmarkGethClientAnchor is the anchor of #32's client measurements:
// go-ethereum's rpc client calling subtract [42,23] on one jetrpc serve
// over TCP (NDJSON), with the load of `jetrpc bench --conns 8 --pipeline
// 8`: 8 connections, 8 calls in flight on each. It reports calls/s and
// the p50 and p99 latency, to be read beside jetrpc bench's rows against
// the same server:
//
//	cd interop/go && go test -run '^$' -bench GethClientAnchor -benchtime 3s
func BenchmarkGethClientAnchor(b *testing.B) {
	const conns, pipeline = 8, 8
	s := startServer(b)
	clients := make([]*rpc.Client, conns)
	for i := range clients {
		nc, err := net.DialTimeout("tcp", s.TCP, callTimeout)
		if err != nil {
			b.Fatal(err)
		}
		c, err := rpc.DialIO(context.Background(), nc, nc)
		if err != nil {
			b.Fatal(err)
		}
		clients[i] = c
		b.Cleanup(func() { nc.Close(); c.Close() })
	}
	var (
		mu   sync.Mutex
		lats []time.Duration
		next = make(chan struct{}, conns*pipeline)
	)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range conns * pipeline {
		c := clients[i%conns]
		wg.Go(func() {
			var mine []time.Duration
			for range next {
				t0 := time.Now()
				var r int
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				err := c.CallContext(ctx, &r, "subtract", 42, 23)
				cancel()
				if err != nil || r != 19 {
					b.Errorf("subtract: %d, %v", r, err)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lats = append(lats, mine...)
			mu.Unlock()
		})
	}
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if len(lats) == 0 {
		return
	}
	slices.Sort(lats)
	b.ReportMetric(float64(len(lats))/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64(lats[len(lats)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lats[len(lats)*99/100].Microseconds()), "p99-µs")
}
