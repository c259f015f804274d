package metrics

// NOTE: Metrics is one prometheus.Collector over plain counters. The
// engine resolves a *method (its counters and histogram) per method when
// it freezes its table (Observer.Method), so a call looks nothing up. The
// counters calls and messages add to are kept per CPU (internal/percpu): a
// method's calls started and ended (dispatch.CallCounts, which the engine
// adds to itself for the calls it does not time) and every histogram
// (latency, request sizes with the response bytes, batches), so that CPUs
// serving the same method do not pass them between their caches; a
// method's counters take 256 bytes per CPU (GOMAXPROCS when it was
// resolved). The failures by code and the events, rare, are atomic.
// Collect reads them and builds constant metrics at scrape time, which is
// where the allocations are.

import (
	"context"
	"math/bits"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configures Metrics. A nil *Options, and every zero field, means
// the default.
type Options struct {
	// LatencyBuckets are the upper bounds of the latency histogram, in
	// seconds, ascending (default DefaultLatencyBuckets).
	LatencyBuckets []float64
	// Codes are error codes of your own that get a code label value each
	// in jetrpc_calls_total. The engine's codes (-32700, -32600..-32603,
	// -32000..-32003) always do; any other code is counted as "other", so
	// that an error code a client chooses (echoed by a handler) cannot
	// create series.
	Codes []encode.Code
	// LatencySample times, for the latency histogram
	// (jetrpc_call_duration_seconds), every call of a method until it has
	// had 1024, then one call in LatencySample at random (rounded up to a
	// power of two; default DefaultLatencySample, 8; 1 times every call).
	// The histogram's count stays exact either way: every call is
	// counted, so its rate is the request rate. Its buckets and sum are
	// then the timed calls' estimate scaled to that count (each bucket
	// within a few percent once a method has had a few thousand calls;
	// never decreasing, and the +Inf bucket equal to the count).
	// jetrpc_calls_total and jetrpc_calls_in_flight count every call
	// exactly. Reading the clock twice costs more than the rest of
	// counting a call on many machines (40-100 ns a read on a VM's
	// kvm-clock): timing every call took a small call to about 1.3 times
	// its time without metrics there (1.13 times its instructions), one in
	// 8 to 1.09 times its instructions (see BenchmarkObserve in bench/ and
	// BENCHMARKS.md).
	LatencySample int
}

// DefaultLatencySample is the default of Options.LatencySample.
const DefaultLatencySample = 8

// UnknownMethodLabel is the method label of the calls of every method the
// engine does not have.
const UnknownMethodLabel = "(unknown)"

// Metrics counts what an engine and its servers do, for Prometheus. It is
// a dispatch.Observer (set it in dispatch.Options.Observer), a
// netserver.Observer (netserver.Options.Observer) and a
// prometheus.Collector. One Metrics may observe several engines and
// servers: their counts add up.
type Metrics struct {
	latency []int64 // bounds, ns
	sample  int     // Options.LatencySample, a power of two
	codes   []encode.Code
	labels  []string // code label values; labels[i] for codes[i-1], labels[0] "ok", the last "other"

	mu      sync.Mutex
	methods map[string]*method
	order   []*method

	msgIn  *histogram // the request sizes, and one extra counter: the responses' bytes (msgOut)
	batch  *histogram
	events [dispatch.NumEvents]atomic.Uint64
	conns  [netserver.NumTransports][netserver.NumConnEvents]atomic.Uint64
}

var _ interface {
	dispatch.Observer
	netserver.Observer
	prometheus.Collector
} = (*Metrics)(nil)

// engineCodes are the codes that always have a label value of their own.
var engineCodes = []encode.Code{
	encode.CodeParseError, encode.CodeInvalidRequest, encode.CodeMethodNotFound,
	encode.CodeInvalidParams, encode.CodeInternalError, encode.CodeServerError,
	encode.CodeOverloaded, encode.CodeShuttingDown, encode.CodeTimeout,
}

// New returns Metrics configured by opts (nil means the defaults) and
// registers it with reg, unless reg is nil (then register it yourself: it
// is a prometheus.Collector).
func New(reg prometheus.Registerer, opts *Options) (*Metrics, error) {
	m := &Metrics{
		methods: make(map[string]*method),
		msgIn:   newHistogram(sizeBounds[:], 1, 1),
		batch:   newHistogram(batchBounds, 1, 0),
	}
	buckets := DefaultLatencyBuckets
	if opts != nil && len(opts.LatencyBuckets) > 0 {
		buckets = opts.LatencyBuckets
	}
	m.latency = secondsBounds(buckets)
	m.sample = DefaultLatencySample
	if opts != nil && opts.LatencySample != 0 {
		m.sample = min(max(opts.LatencySample, 1), 1<<30)
	}
	m.sample = 1 << bits.Len(uint(m.sample-1)) // what the engine rounds it to
	m.codes = append(m.codes, engineCodes...)
	if opts != nil {
		for _, c := range opts.Codes {
			if m.codeIndex(c) == len(m.codes)+1 {
				m.codes = append(m.codes, c)
			}
		}
	}
	m.labels = append(m.labels, "ok")
	for _, c := range m.codes {
		m.labels = append(m.labels, strconv.Itoa(int(c)))
	}
	m.labels = append(m.labels, "other")
	if reg != nil {
		if err := reg.Register(m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// codeIndex is the index in method.calls of code.
func (m *Metrics) codeIndex(code encode.Code) int {
	if code == 0 {
		return 0
	}
	for i, c := range m.codes {
		if c == code {
			return i + 1
		}
	}
	return len(m.codes) + 1
}

// method holds the counters of one method. A call adds to two, per CPU:
// its calls started and ended (the engine adds to them itself for the
// calls it does not time: dispatch.CountingObserver); a timed one (see
// Options.LatencySample) to the latency histogram's bucket and sum, and a
// failed one to its code's counter. The calls that succeeded are the
// ended ones less the failed ones, and the ended ones are the latency
// histogram's count (see Collect).
type method struct {
	m       *Metrics
	name    string
	counts  *dispatch.CallCounts // calls begun and ended; in flight = started - ended
	errs    []atomic.Uint64      // failed calls by code index (0: unused)
	latency *histogram

	lastOK uint64 // the ok count last collected (under m.mu), which it never goes below
}

var _ dispatch.CountingObserver = (*method)(nil)

// Method returns the counters of the method name (dispatch.Observer). The
// same name gets the same counters.
func (m *Metrics) Method(name string) dispatch.MethodObserver {
	if name == dispatch.UnknownMethod {
		name = UnknownMethodLabel
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if md := m.methods[name]; md != nil {
		return md
	}
	md := &method{m: m, name: name, counts: dispatch.NewCallCounts(),
		errs: make([]atomic.Uint64, len(m.labels)), latency: newHistogram(m.latency, 1e-9, 0)}
	m.methods[name] = md
	m.order = append(m.order, md)
	return md
}

// TimeEvery is Options.LatencySample (dispatch.TimingObserver).
func (md *method) TimeEvery() int { return md.m.sample }

// Counts returns where the method's calls are counted
// (dispatch.CountingObserver).
func (md *method) Counts() *dispatch.CallCounts { return md.counts }

// Begin counts a call in flight (dispatch.MethodObserver).
func (md *method) Begin(context.Context) { md.counts.AddStarted() }

// End counts a call ended, its latency when it was timed (for
// Options.LatencySample calls) and, when it failed, its code
// (dispatch.MethodObserver). The end is counted first: Collect relies on
// that order.
func (md *method) End(_ context.Context, c dispatch.CallEnd) {
	md.counts.AddEnded()
	switch {
	case c.Sampled: // one in md.m.sample calls, at random
		md.latency.observeN(int64(c.Duration), uint64(md.m.sample))
	case !c.Untimed: // every call timed (LatencySample 1, or Metrics within dispatch.Observers)
		md.latency.observe(int64(c.Duration))
	}
	if c.Code != 0 {
		md.errs[md.m.codeIndex(c.Code)].Add(1)
	}
}

// Message counts a message's sizes and a batch's members
// (dispatch.Observer).
func (m *Metrics) Message(in, out, batch int) {
	h := m.msgIn // its bucket and sum, and the response bytes in its extra counter: one pin
	h.pc.Add3(h.index(int64(in)), 1, h.sumAt(), uint64(max(in, 0)), h.extraAt(), uint64(max(out, 0)))
	if batch > 0 {
		m.batch.observe(int64(batch))
	}
}

// Event counts an engine event (dispatch.Observer).
func (m *Metrics) Event(ev dispatch.Event) {
	if ev < dispatch.NumEvents {
		m.events[ev].Add(1)
	}
}

// ObserveConn counts a connection event (netserver.Observer).
func (m *Metrics) ObserveConn(t netserver.Transport, ev netserver.ConnEvent) {
	if t < netserver.NumTransports && ev < netserver.NumConnEvents {
		m.conns[t][ev].Add(1)
	}
}
