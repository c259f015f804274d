package dispatch_test

import (
	"log/slog"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
)

// BenchmarkBatchFanOut measures batches of calls of a method that blocks
// (sleeps d, as a call to a backend waits) for several BatchFanOut bounds:
// the time a batch takes (ns/op), the process's CPU time per member
// (cpu-ns/member: getrusage, so the scheduler's and the runtime's work
// count), and the most members running at once (peak). It is what
// DefaultBatchFanOut is chosen by (README, "Embed it").
//
//	go test -run '^$' -bench '^BenchmarkBatchFanOut$' -benchtime 20x ./dispatch
func BenchmarkBatchFanOut(b *testing.B) {
	for _, d := range []time.Duration{100 * time.Microsecond, time.Millisecond} {
		for _, n := range []int{1000, 10000} {
			msg := batchOfCalls(n, "block", "[]")
			for _, fan := range []int{16, 64, 256, 1024, 4096, 10000} {
				if fan > n {
					continue
				}
				b.Run("sleep="+d.String()+"/members="+strconv.Itoa(n)+"/fanout="+strconv.Itoa(fan), func(b *testing.B) {
					h := &blockFor{d: d}
					e := dispatch.New(&dispatch.Options{MaxBatch: n, BatchFanOut: fan, Logger: slog.New(slog.DiscardHandler)})
					defer e.Close()
					if err := e.RegisterMethod(dispatch.Method{Name: "block", Handler: h}); err != nil {
						b.Fatal(err)
					}
					dst := make([]byte, 0, 2*len(msg))
					dst = e.Process(dst[:0], msg) // the workers exist
					b.ReportAllocs()
					b.SetBytes(int64(len(msg)))
					cpu0 := cpuTime()
					b.ResetTimer()
					for range b.N {
						dst = e.Process(dst[:0], msg)
					}
					b.StopTimer()
					b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*n), "cpu-ns/member")
					b.ReportMetric(float64(h.peak.Load()), "peak")
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					b.ReportMetric(float64(ms.StackInuse>>10), "stack-KiB")
				})
			}
		}
	}
}

// cpuTime is the process's user and system CPU time, in ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
