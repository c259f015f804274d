package pool_test

import (
	"sync"
	"testing"

	"github.com/jetrpc/jetrpc/internal/pool"
)

// doneTask marks one task of a WaitGroup done; one pointer serves all submits.
type doneTask struct{ g *sync.WaitGroup }

func (d *doneTask) Run() { d.g.Done() }

// BenchmarkSubmit measures the hand-off of a trivial task to a worker; ns/op
// is per task, including its run. Cases:
//
//   - roundtrip: submit one task and wait for it; the latency a lone batch
//     member pays over running inline (compare BenchmarkInline);
//   - batch10: submit 10, wait for all, repeat; a batch fanned out;
//   - stream: submit without waiting, one Wait at the end. The producer
//     outruns the workers, so the pool grows towards Max and refuses
//     (inline/op); this is the worst case, not the usual one.
func BenchmarkSubmit(b *testing.B) {
	for _, c := range []struct {
		name  string
		batch int // tasks per Wait; 0: one Wait at the end
	}{{"roundtrip", 1}, {"batch10", 10}, {"stream", 0}} {
		b.Run(c.name, func(b *testing.B) {
			w := pool.NewWorkers(nil)
			defer w.Stop()
			var g sync.WaitGroup
			task := &doneTask{g: &g}
			b.ReportAllocs()
			inline, n := 0, 0
			for b.Loop() {
				g.Add(1)
				if !w.Submit(task) {
					inline++
					task.Run()
				}
				if n++; n == c.batch {
					g.Wait()
					n = 0
				}
			}
			g.Wait()
			b.ReportMetric(float64(inline)/float64(b.N), "inline/op")
		})
	}
}

// BenchmarkSubmitParallel submits from GOMAXPROCS goroutines at once, like
// several connections handing calls to one pool.
func BenchmarkSubmitParallel(b *testing.B) {
	w := pool.NewWorkers(nil)
	defer w.Stop()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var g sync.WaitGroup
		task := &doneTask{g: &g}
		for pb.Next() {
			g.Add(1)
			if !w.Submit(task) {
				task.Run()
			}
		}
		g.Wait()
	})
}

// BenchmarkGoStatement is the baseline: a new goroutine per task.
func BenchmarkGoStatement(b *testing.B) {
	var wg sync.WaitGroup
	b.ReportAllocs()
	for b.Loop() {
		wg.Add(1)
		go wg.Done()
	}
	wg.Wait()
}

// BenchmarkGoStatementRoundTrip is the baseline for BenchmarkSubmitRoundTrip.
func BenchmarkGoStatementRoundTrip(b *testing.B) {
	var wg sync.WaitGroup
	b.ReportAllocs()
	for b.Loop() {
		wg.Add(1)
		go wg.Done()
		wg.Wait()
	}
}

// BenchmarkInline is the floor: the same task called directly.
func BenchmarkInline(b *testing.B) {
	var g sync.WaitGroup
	task := &doneTask{g: &g}
	b.ReportAllocs()
	for b.Loop() {
		g.Add(1)
		task.Run()
	}
	g.Wait()
}

func BenchmarkGetPutBuffer(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			buf := pool.GetBuffer()
			buf.B = append(buf.B, "response"...)
			pool.PutBuffer(buf)
		}
	})
}
