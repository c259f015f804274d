package metrics

import (
	"runtime"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// TestHistogramScaled: while every observation stands for itself the
// count is the buckets' total; once samples stand for several, the count
// is the exact one given, the buckets and sum the samples' shares of it,
// and no bucket, nor the sum, ever goes below what was last exported.
func TestHistogramScaled(t *testing.T) {
	d := prometheus.NewDesc("h", "h", nil, nil)
	h := newHistogram([]int64{10, 100}, 1, 0)
	check := func(exact uint64, want []uint64, count uint64, sum float64) {
		t.Helper()
		var m dto.Metric
		if err := h.metric(d, exact).Write(&m); err != nil {
			t.Fatal(err)
		}
		hm := m.GetHistogram()
		var got []uint64
		for _, b := range hm.GetBucket() {
			got = append(got, b.GetCumulativeCount())
		}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] ||
			hm.GetSampleCount() != count || hm.GetSampleSum() != sum {
			t.Fatalf("exact %d: buckets %v count %d sum %v, want %v %d %v",
				exact, got, hm.GetSampleCount(), hm.GetSampleSum(), want, count, sum)
		}
	}
	h.observe(5)
	h.observe(50)
	h.observe(500)
	check(999, []uint64{1, 2}, 3, 555) // every observation itself: exact is not used
	for range 3 {
		h.observeN(5, 8)
	}
	h.observeN(50, 8)
	// 35 weighted: 1+24 up to 10, 1+8 up to 100, 1 above; scaled to 70.
	check(70, []uint64{50, 68}, 70, 1075*2)
	// A ratio that drops: 43 weighted scaled to 71 would put bucket 10 at
	// 41 and bucket 100 at 56; they stay at 50 and 68.
	h.observeN(500, 8)
	check(71, []uint64{50, 68}, 71, 5075*(71/43.0))
}

// TestHistogramIndex: index finds the first bound >= v, as a search of
// the bounds does, for the histograms' bounds and others.
func TestHistogramIndex(t *testing.T) {
	sets := [][]int64{sizeBounds[:], batchBounds, secondsBounds(DefaultLatencyBuckets),
		{-5, 0, 1, 2, 3, 1000, 1001, 1 << 40}, {7}, {}}
	var many []int64
	for i := range 300 {
		many = append(many, int64(i*i))
	}
	sets = append(sets, many)
	for _, bounds := range sets {
		h := newHistogram(bounds, 1, 0)
		var vs []int64
		for _, b := range bounds {
			vs = append(vs, b-1, b, b+1)
		}
		for n := range 63 {
			vs = append(vs, int64(1)<<n, int64(1)<<n-1, int64(1)<<n+1)
		}
		vs = append(vs, -1<<63, -1, 0, 1<<63-1)
		for _, v := range vs {
			want := 0
			for want < len(bounds) && bounds[want] < v {
				want++
			}
			if got := h.index(v); got != want {
				t.Fatalf("bounds %v: index(%d) = %d, want %d", bounds, v, got, want)
			}
		}
	}
}

// TestHistogramConcurrent: observations from several goroutines at once,
// on whichever CPUs they run, all land: the count, each bucket and the sum
// are exact, and so is a caller's extra counter.
func TestHistogramConcurrent(t *testing.T) {
	h := newHistogram([]int64{10, 100}, 1, 1)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 3000 {
				h.observe(int64(5 + 50*(i%3))) // 5, 55, 105
				h.pc.Add(h.extraAt(), uint64(g))
				if i%100 == 0 {
					runtime.Gosched()
				}
			}
		})
	}
	wg.Wait()
	var m dto.Metric
	if err := h.metric(prometheus.NewDesc("h", "h", nil, nil), 0).Write(&m); err != nil {
		t.Fatal(err)
	}
	hm := m.GetHistogram()
	b := hm.GetBucket()
	if hm.GetSampleCount() != 12000 || b[0].GetCumulativeCount() != 4000 || b[1].GetCumulativeCount() != 8000 ||
		hm.GetSampleSum() != 4000*(5+55+105) {
		t.Errorf("count %d, buckets %d %d, sum %v; want 12000, 4000 8000, %d", hm.GetSampleCount(),
			b[0].GetCumulativeCount(), b[1].GetCumulativeCount(), hm.GetSampleSum(), 4000*(5+55+105))
	}
	if n := h.pc.Load(h.extraAt()); n != 3000*(0+1+2+3) {
		t.Errorf("extra counter %d, want %d", n, 3000*6)
	}
}
