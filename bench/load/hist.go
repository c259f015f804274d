package load

// NOTE: the histogram is HDR-style log-linear: values below 128 have a
// bucket each; above, every power of two is split into 64 equal buckets, so
// a bucket's width is at most 1/64 (1.6%) of its values. Index of v >= 128:
// s = bits.Len64(v)-7, then s*64 + v>>s (v>>s lies in [64,128)).

import (
	"math"
	"math/bits"
	"time"
)

const (
	histSub     = 64                     // buckets per power of two
	histBuckets = 58*histSub + 2*histSub // enough for every uint64 value
)

// Histogram counts durations in nanoseconds. The zero value is empty and
// ready; Record allocates nothing. It is not safe for concurrent use: keep
// one per goroutine and Merge them.
type Histogram struct {
	counts [histBuckets]uint64
	n      uint64
	min    uint64
	max    uint64
	sum    float64
}

func histIndex(v uint64) int {
	if v < 2*histSub {
		return int(v)
	}
	s := bits.Len64(v) - 7
	return s*histSub + int(v>>uint(s))
}

// histUpper is the largest value that falls into bucket i.
func histUpper(i int) uint64 {
	if i < 2*histSub {
		return uint64(i)
	}
	s := i/histSub - 1
	lo := uint64(i-s*histSub) << uint(s)
	return lo + (1 << uint(s)) - 1
}

// Record adds one duration (negative counts as 0).
func (h *Histogram) Record(d time.Duration) { h.RecordValue(uint64(max(d, 0))) }

// RecordValue adds one value.
func (h *Histogram) RecordValue(v uint64) {
	h.counts[histIndex(v)]++
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.n++
	h.sum += float64(v)
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.n += o.n
	h.sum += o.sum
}

// Reset empties h.
func (h *Histogram) Reset() { *h = Histogram{} }

// Count is the number of values recorded.
func (h *Histogram) Count() uint64 { return h.n }

// Max is the largest value recorded (exact).
func (h *Histogram) Max() time.Duration { return time.Duration(h.max) }

// Min is the smallest value recorded (exact).
func (h *Histogram) Min() time.Duration { return time.Duration(h.min) }

// Mean is the mean of the values recorded (exact).
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sum / float64(h.n))
}

// Quantile returns the value at quantile q in [0,1]: the upper end of the
// bucket holding the ceil(q*n)-th smallest value, never more than Max. It is
// exact below 128ns and within 1/64 above.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return time.Duration(min(max(histUpper(i), h.min), h.max))
		}
	}
	return time.Duration(h.max)
}
