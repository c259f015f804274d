package metrics

import (
	"math/bits"

	"github.com/jetrpc/jetrpc/internal/percpu"
	"github.com/prometheus/client_golang/prometheus"
)

// histogram is a fixed-bucket histogram of int64 observations (nanoseconds,
// bytes, members) kept per CPU (internal/percpu): an observation adds to
// its bucket's count, the sum and the samples, in one pin of the
// goroutine to its CPU, so that CPUs observing the same histogram do not
// pass its counters between their caches. The count is the buckets'
// total, added up at scrape time, which also makes the buckets
// cumulative; or, once it has had a sample standing for several
// observations, a count kept elsewhere (see metric). Counters of the
// caller's own may follow its own (extra: Metrics.Message adds to one in
// the same pin). It takes (len(bounds)+3+extra) words rounded up to 64
// bytes, per CPU.
type histogram struct {
	bounds []int64          // upper bounds, inclusive, ascending
	from   [65]uint8        // from[bits.Len64(v)]: the first bucket v can fall in (see index)
	scale  float64          // what one unit is in the exposed unit (1e-9: ns to seconds)
	upper  []float64        // bounds in the exposed unit
	pc     *percpu.Counters // the buckets' counts (len(bounds)+1: the last is +Inf), then sumAt, samplesAt, the extra ones
	shown  []uint64         // the cumulative counts last exported (under Metrics.mu): never less
	shownS float64          // the sum last exported, likewise
	_      [0]func()        // not comparable
}

// newHistogram returns a histogram of bounds, whose values are scale
// units of what it exposes, with extra counters of the caller's after its
// own (from extraAt).
func newHistogram(bounds []int64, scale float64, extra int) *histogram {
	h := &histogram{bounds: bounds, scale: scale, pc: percpu.New(len(bounds) + 3 + extra)}
	h.upper = make([]float64, len(bounds))
	for i, b := range bounds {
		h.upper[i] = float64(b) * scale
	}
	for n := range h.from { // the first bound >= the least value of bit length n
		least := int64(0)
		if n > 0 {
			least = int64(uint64(1) << (n - 1))
		}
		i := 0
		for i < len(bounds) && bounds[i] < least && i < 255 {
			i++
		}
		h.from[n] = uint8(i)
	}
	return h
}

// The counters of a histogram after its buckets' counts.
func (h *histogram) sumAt() int     { return len(h.bounds) + 1 } // the observations' sum, in units
func (h *histogram) samplesAt() int { return len(h.bounds) + 2 } // the samples that stood for several
func (h *histogram) extraAt() int   { return len(h.bounds) + 3 } // the first of the caller's own

// index returns the bucket of v: the first bound >= v. A value's bit
// length gives the first bucket it can fall in, and a step or two finds
// its own (bounds a factor of two or more apart take at most one).
func (h *histogram) index(v int64) int {
	i := 0
	if v >= 0 {
		i = int(h.from[bits.Len64(uint64(v))])
	}
	for i < len(h.bounds) && h.bounds[i] < v {
		i++
	}
	return i
}

// observe counts v.
func (h *histogram) observe(v int64) { h.observeN(v, 1) }

// observeN counts v n times (a sample standing for n observations).
func (h *histogram) observeN(v int64, n uint64) {
	var sample uint64
	if n > 1 {
		sample = 1
	}
	h.pc.Add3(h.index(v), n, h.sumAt(), uint64(max(v, 0))*n, h.samplesAt(), sample)
}

// metric returns the histogram as a constant Prometheus metric (called
// under Metrics.mu). Its count is the buckets' total while every
// observation stood for itself. Once samples stood for several (a latency
// histogram under Options.LatencySample), the count is exact, the calls
// counted elsewhere, and the buckets and sum are the samples' estimate
// scaled to it: each cumulative bucket is its share of the samples times
// exact, never less than it was last exported (so that every bucket stays
// a counter; the sum likewise), and the +Inf bucket is exact itself, as
// Prometheus requires of _count.
func (h *histogram) metric(d *prometheus.Desc, exact uint64, labels ...string) prometheus.Metric {
	cum := make([]uint64, len(h.bounds)+1)
	var n uint64
	for i := range cum {
		n += h.pc.Load(i)
		cum[i] = n
	}
	sum := float64(h.pc.Load(h.sumAt())) * h.scale
	if h.pc.Load(h.samplesAt()) > 0 && n > 0 {
		for i, c := range cum {
			hi, lo := bits.Mul64(c, exact)
			cum[i], _ = bits.Div64(hi, lo, n) // c <= n: no overflow
		}
		cum[len(cum)-1] = exact
		sum *= float64(exact) / float64(n)
	}
	if h.shown == nil {
		h.shown = make([]uint64, len(cum))
	}
	for i := range cum { // each at least its last value; still ascending
		cum[i] = max(cum[i], h.shown[i])
		h.shown[i] = cum[i]
	}
	sum = max(sum, h.shownS)
	h.shownS = sum
	buckets := make(map[float64]uint64, len(h.bounds))
	for i, b := range h.upper {
		buckets[b] = cum[i]
	}
	return prometheus.MustNewConstHistogram(d, cum[len(cum)-1], sum, buckets, labels...)
}

// secondsBounds turns bucket bounds in seconds into nanoseconds.
func secondsBounds(secs []float64) []int64 {
	b := make([]int64, len(secs))
	for i, s := range secs {
		b[i] = int64(s * 1e9)
	}
	return b
}

// DefaultLatencyBuckets are the bounds of the latency histogram, in
// seconds: 10 µs to 10 s, for calls from a microsecond to many seconds.
var DefaultLatencyBuckets = []float64{
	0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005,
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

// sizeBounds are the bounds of the message size histogram: 64 B to 16 MiB
// by powers of four.
var sizeBounds = [...]int64{64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20}

// batchBounds are the bounds of the batch size histogram.
var batchBounds = []int64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}
