package dispatch

import (
	"log/slog"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/pool"
)

// Options configures an Engine. A nil *Options, and every zero field, means
// the default.
type Options struct {
	// MaxBatch is the most members a batch may have (default 1000).
	MaxBatch int
	// MaxDepth is the deepest nesting a message may have (default 1000).
	MaxDepth int
	// MaxWorkers bounds the pooled goroutines that run batch members
	// concurrently (default pool.DefaultMaxWorkers, 16384). When all are busy, members run on the
	// caller's goroutine.
	MaxWorkers int
	// WorkerIdle is how long an idle worker goroutine is kept (default 10s).
	WorkerIdle time.Duration
	// Logger receives handler panics and dropped responses (default
	// slog.Default()).
	Logger *slog.Logger
}

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

func (o *Options) maxWorkers() int {
	if o == nil || o.MaxWorkers <= 0 {
		return defaultMaxWorkers
	}
	return o.MaxWorkers
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
