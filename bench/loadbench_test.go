package bench_test

import (
	"context"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/load"
)

// benchLoad sends b.N calls of the "small" case (subtract [42,23]) to cfg's
// server with the load generator (bench/load: every answer matched by id and
// checked, no allocation per call), fails b if any call went wrong, and
// reports calls/s, the process's allocations per call and its CPU time per
// call (server and generator together: on a shared, loaded machine CPU
// time moves much less than wall time). It is the load of BenchmarkTCP,
// BenchmarkHTTP and BenchmarkWS.
func benchLoad(b *testing.B, cfg load.Config) {
	b.Helper()
	reqs, err := load.Mix("small")
	if err != nil {
		b.Fatal(err)
	}
	cfg.Requests, cfg.Count = reqs, int64(b.N)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b.ResetTimer()
	before, cpu := mallocs(), cpuTime()
	res, err := load.Run(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	if res.Failed() > 0 || res.OK != int64(b.N) {
		b.Fatalf("%d of %d calls answered well: %+v", res.OK, b.N, res.Counts)
	}
	b.ReportMetric(res.Rate(), "calls/s")
	b.ReportMetric(float64(mallocs()-before)/float64(b.N), "allocs/call")
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/call")
}

// cpuTime is the process's CPU time so far (user and system), 0 if
// getrusage fails.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// mallocs is the process's heap allocation count so far. The servers and
// the load generator share the process, so a delta over a run bounds the
// server's allocations per call from above (the generator allocates only
// per connection).
func mallocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}

// servers are a benchmark's loopback servers, their addresses by name.
type servers map[string]string

// start serves name on a fresh loopback port with serve, and calls stop
// when tb ends.
func (s servers) start(tb testing.TB, name string, serve func(net.Listener) error, stop func()) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s[name] = ln.Addr().String()
	go serve(ln)
	tb.Cleanup(stop)
}

// shutdown is a stop for a jetrpc server: its Shutdown, 5s to drain.
func shutdown(f func(context.Context) error) func() {
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		f(ctx)
	}
}
