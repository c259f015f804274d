//go:build !race

package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/load"
)

// TestWSServerAllocs bounds the allocations per call of jetrpc's WebSocket
// endpoint, driven in this process by the load generator (which allocates
// nothing per call): none per message; what remains is per connection (the
// handshake, the buffers, the goroutines) and runtime noise.
func TestWSServerAllocs(t *testing.T) {
	addr := wsServers(t)["jetrpc"]
	reqs, err := load.Mix("small")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(n int64) {
		res, err := load.Run(ctx, load.Config{Addr: addr, Transport: load.WS, Conns: 4, Pipeline: 16,
			Count: n, Requests: reqs})
		if err != nil || res.Failed() > 0 || res.OK != n {
			t.Fatalf("run: %v, %+v", err, res)
		}
	}
	run(2000) // warm the pools
	const n = 50000
	before := mallocs()
	run(n)
	per := float64(mallocs()-before) / n
	t.Logf("%.3f allocations per call (server and generator, per-connection setup included)", per)
	if per > 0.05 {
		t.Errorf("%.3f allocations per call, want 0 (plus per-connection setup)", per)
	}
}
