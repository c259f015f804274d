package load

import (
	"testing"
	"time"
)

func TestHistogramExactSmall(t *testing.T) {
	var h Histogram
	for v := uint64(1); v <= 100; v++ {
		h.RecordValue(v)
	}
	f := func(q float64, want time.Duration) {
		t.Helper()
		if got := h.Quantile(q); got != want {
			t.Errorf("Quantile(%v) = %v, want %v", q, got, want)
		}
	}
	f(0, 1)
	f(0.5, 50)
	f(0.9, 90)
	f(0.99, 99)
	f(0.999, 100)
	f(1, 100)
	if h.Count() != 100 || h.Min() != 1 || h.Max() != 100 {
		t.Errorf("count %d min %v max %v", h.Count(), h.Min(), h.Max())
	}
	if m := h.Mean(); m != 50 { // 50.5 truncated
		t.Errorf("Mean = %v", m)
	}
}

func TestHistogramLogLinear(t *testing.T) {
	// 1..100000 microseconds: the q-quantile is q*100000us, within 1/64.
	var h Histogram
	for v := 1; v <= 100000; v++ {
		h.Record(time.Duration(v) * time.Microsecond)
	}
	f := func(q float64, want time.Duration) {
		t.Helper()
		got := h.Quantile(q)
		if got < want || float64(got-want) > float64(want)/64 {
			t.Errorf("Quantile(%v) = %v, want %v (+1/64)", q, got, want)
		}
	}
	f(0.5, 50*time.Millisecond)
	f(0.9, 90*time.Millisecond)
	f(0.99, 99*time.Millisecond)
	f(0.999, 99900*time.Microsecond)
	f(1, 100*time.Millisecond)
	if h.Max() != 100*time.Millisecond {
		t.Errorf("Max = %v", h.Max())
	}
}

func TestHistogramSkewedAndMerge(t *testing.T) {
	// 990 fast calls (1ms) and 10 slow ones (1s): p99 is fast, p99.9 slow.
	var a, b Histogram
	for range 990 {
		a.Record(time.Millisecond)
	}
	for range 10 {
		b.Record(time.Second)
	}
	a.Merge(&b)
	near := func(got, want time.Duration) bool { return got >= want && got-want <= want/64 }
	if got := a.Quantile(0.99); !near(got, time.Millisecond) {
		t.Errorf("p99 = %v", got)
	}
	if got := a.Quantile(0.991); !near(got, time.Second) {
		t.Errorf("p99.1 = %v", got)
	}
	if a.Count() != 1000 || a.Max() != time.Second || a.Min() != time.Millisecond {
		t.Errorf("count %d max %v min %v", a.Count(), a.Max(), a.Min())
	}
	var empty Histogram
	if empty.Quantile(0.5) != 0 {
		t.Error("empty histogram")
	}
}

func TestHistIndexBounds(t *testing.T) {
	for _, v := range []uint64{0, 127, 128, 129, 1000, 1 << 40, 1<<64 - 1} {
		i := histIndex(v)
		if i >= histBuckets || histUpper(i) < v || (i > 0 && histUpper(i-1) >= v) {
			t.Errorf("v=%d: index %d upper %d", v, i, histUpper(i))
		}
	}
}
