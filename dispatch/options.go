package dispatch

import (
	"log/slog"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/internal/pool"
)

// Options configures an Engine. A nil *Options, and every zero field, means
// the default.
type Options struct {
	// MaxBatch is the most members a batch may have (default 1000).
	MaxBatch int
	// MaxDepth is the deepest nesting a message may have (default 1000).
	MaxDepth int
	// MaxBatchResponse bounds the bytes of the responses of one batch,
	// together (default DefaultMaxBatchResponse, 16 MiB). A call whose
	// response does not fit in what is left is answered instead with
	// -32000 "Response too large" (error.data names the bound); its handler
	// has run. The others are answered as usual. So a batch's response stays
	// under the bound plus one short error (about 120 bytes) per member.
	MaxBatchResponse int
	// MaxResponse bounds the bytes of one response held in memory (default
	// DefaultMaxResponse, 16 MiB): a call whose result would take its
	// response over it is answered instead with the ResponseTooLarge
	// condition (-32000 "Response too large", error.data naming the bound)
	// and its id; its handler has run, and the connection's other calls go
	// on. It applies to batch members too, beside MaxBatchResponse. A
	// result streamed with ResultWriter on a transport that sends it as it
	// is produced is never held, so MaxResponse does not cap it; where it
	// must be held (Content-Length and len32 framings, a batch member) it
	// does.
	MaxResponse int
	// CallTimeout bounds each call and notification of a method that is not
	// Inline (default 0: no bound). Its handler's context is cancelled when
	// the time is up and the caller gets -32003 "Request timed out", also
	// when the handler ignores the context and returns a result later (Go
	// cannot stop a goroutine: handlers must watch ctx.Done). Inline
	// methods run on the caller's goroutine, are meant never to block, and
	// are not timed, so the hot path pays nothing for this option.
	CallTimeout time.Duration
	// MaxWorkers bounds the pooled goroutines that run batch members
	// concurrently (default 16384). When all are busy, members run on the
	// caller's goroutine.
	MaxWorkers int
	// BatchFanOut bounds the members of one batch that run on workers at
	// once (default DefaultBatchFanOut, 256): the next one starts when one
	// of them returns. So a batch of 100 blocking calls still runs them
	// all at once, and one of 10,000 holds 256 goroutines, not 10,000.
	BatchFanOut int
	// WorkerIdle is how long an idle worker goroutine is kept (default
	// 10s), for IdleWorkers of them; more idle ones exit after 100 ms.
	WorkerIdle time.Duration
	// IdleWorkers is how many idle worker goroutines wait WorkerIdle for
	// work (default 16; negative: none), so that a burst
	// of blocking calls leaves at most that many behind.
	IdleWorkers int
	// Logger receives handler panics and dropped responses (default
	// slog.Default()).
	Logger *slog.Logger
	// Observer sees every call, message and event (default none; see
	// Observer, and package metrics for Prometheus). Without one the hot
	// path pays a branch per call.
	Observer Observer
	// ReuseContexts did what every call's context now does without
	// asking: it cost an allocation a call (64 bytes) to have a context
	// safe to keep, and this made them reused instead. A context is now
	// safe to keep and costs nothing, so this is ignored.
	//
	// Deprecated: every call's context is free and safe to keep.
	ReuseContexts bool
	// StrictParams is Method.StrictParams for every method: Typed
	// handlers refuse named params with unknown members (-32602).
	StrictParams bool
	// MethodTimeouts and MethodCosts set Method.Timeout and Method.Cost
	// by name, over what the registration said: an operator's policy
	// (jetrpc serve --method-timeout, --method-cost).
	MethodTimeouts map[string]time.Duration
	MethodCosts    map[string]int
	// Codes are the codes the engine answers its own conditions
	// (overloaded, shutting down, timeout, limits, ...) with (default: the
	// engine's, encode.CodeOverloaded and the rest). A protocol whose codes
	// in -32000..-32099 mean other things sets them; see Codes.
	Codes *Codes
	// Forward, when set, takes over every call, notification and batch:
	// the engine parses them and hands them to it instead of its method
	// table (a gateway; see Forwarder); MethodCosts then price them by
	// method name. Default nil.
	Forward Forwarder
}

// DefaultMaxBatchResponse is the MaxBatchResponse used when 0 is given.
const DefaultMaxBatchResponse = 16 << 20

// DefaultMaxResponse is the MaxResponse used when 0 is given.
const DefaultMaxResponse = 16 << 20

// DefaultBatchFanOut is the BatchFanOut used when 0 is given: as many
// members of one batch run at once as calls of one connection
// (netserver.DefaultMaxInFlight).
const DefaultBatchFanOut = 256

const defaultMaxWorkers = pool.DefaultMaxWorkers

func (o *Options) maxBatch() int {
	if o == nil || o.MaxBatch <= 0 {
		return decode.DefaultMaxBatch
	}
	return o.MaxBatch
}

func (o *Options) maxDepth() int {
	if o == nil || o.MaxDepth <= 0 {
		return decode.DefaultMaxDepth
	}
	return o.MaxDepth
}

func (o *Options) maxBatchResponse() int {
	if o == nil || o.MaxBatchResponse <= 0 {
		return DefaultMaxBatchResponse
	}
	return o.MaxBatchResponse
}

func (o *Options) maxResponse() int {
	if o == nil || o.MaxResponse <= 0 {
		return DefaultMaxResponse
	}
	return o.MaxResponse
}

func (o *Options) callTimeout() time.Duration {
	if o == nil || o.CallTimeout <= 0 {
		return 0
	}
	return o.CallTimeout
}

func (o *Options) maxWorkers() int {
	if o == nil || o.MaxWorkers <= 0 {
		return defaultMaxWorkers
	}
	return o.MaxWorkers
}

func (o *Options) batchFanOut() int {
	if o == nil || o.BatchFanOut <= 0 {
		return DefaultBatchFanOut
	}
	return o.BatchFanOut
}

func (o *Options) idleWorkers() int {
	if o == nil {
		return 0
	}
	return o.IdleWorkers
}

func (o *Options) workerIdle() time.Duration {
	if o == nil || o.WorkerIdle <= 0 {
		return 10 * time.Second
	}
	return o.WorkerIdle
}

func (o *Options) logger() *slog.Logger {
	if o == nil || o.Logger == nil {
		return slog.Default()
	}
	return o.Logger
}

func (o *Options) observer() Observer {
	if o == nil {
		return nil
	}
	return o.Observer
}

func (o *Options) codes() *Codes {
	if o == nil {
		return nil
	}
	return o.Codes
}
