package cache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// CallFunc calls method with params (raw JSON) on an upstream and appends
// the raw result to dst. jetrpc proxy passes one that calls its default
// upstream group; client.(*Client).CallRaw and client.(*Pool).CallRaw have
// this shape.
type CallFunc func(ctx context.Context, dst []byte, method string, params []byte) ([]byte, error)

// Defaults of FinalityOptions.
const (
	DefaultFinalityInterval = 4 * time.Second
	DefaultFinalityDepth    = 64
)

// FinalityOptions configure a Finality; nil gives the defaults.
type FinalityOptions struct {
	// Interval between polls. Default DefaultFinalityInterval.
	Interval time.Duration
	// Timeout of one poll. Default: Interval.
	Timeout time.Duration
	// Depth is how far below the head a block counts as final when the
	// upstream has no "finalized" block (a chain without a beacon chain,
	// or a node that does not follow one): then the follower takes
	// eth_blockNumber minus Depth. Default DefaultFinalityDepth.
	Depth uint64
}

// Finality follows an Ethereum chain's finalized block number: every
// Interval it asks eth_getBlockByNumber("finalized", false) and reads the
// block's number; when that fails or answers null, it takes
// eth_blockNumber minus Depth instead. Until one poll succeeds the block is
// unknown. Safe for concurrent use; Block does not allocate.
type Finality struct {
	call     CallFunc
	interval time.Duration
	timeout  time.Duration
	depth    uint64
	block    atomic.Uint64 // the finalized block + 1; 0: unknown
	mu       sync.Mutex
	stop     context.CancelFunc
	done     chan struct{}
	buf      []byte // poll results; used by one poll at a time (mu)
}

// NewFinality returns a follower that polls through call once started.
func NewFinality(call CallFunc, opts *FinalityOptions) *Finality {
	f := &Finality{call: call, interval: DefaultFinalityInterval, depth: DefaultFinalityDepth}
	if opts != nil {
		if opts.Interval > 0 {
			f.interval = opts.Interval
		}
		if opts.Depth > 0 {
			f.depth = opts.Depth
		}
		f.timeout = opts.Timeout
	}
	if f.timeout <= 0 {
		f.timeout = f.interval
	}
	return f
}

// Block returns the finalized block number; ok is false while it is
// unknown.
func (f *Finality) Block() (n uint64, ok bool) {
	if b := f.block.Load(); b != 0 {
		return b - 1, true
	}
	return 0, false
}

// Set records n as the finalized block (for a caller that learns it
// another way, e.g. from a newHeads subscription).
func (f *Finality) Set(n uint64) { f.block.Store(n + 1) }

// Start polls once now and then every Interval, until Stop or until ctx
// ends. Starting a started Finality does nothing.
func (f *Finality) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stop != nil {
		return
	}
	ctx, f.stop = context.WithCancel(ctx)
	f.done = make(chan struct{})
	go f.loop(ctx, f.done)
}

// Stop ends the polling and waits for it to end.
func (f *Finality) Stop() {
	f.mu.Lock()
	stop, done := f.stop, f.done
	f.stop, f.done = nil, nil
	f.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

func (f *Finality) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(f.interval)
	defer t.Stop()
	for {
		_ = f.Poll(ctx) // a failed poll keeps the last known block
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

var (
	errNoFinalized = errors.New("cache: the upstream reported neither a finalized block nor a block number")
	errNotNumber   = errors.New("cache: the upstream's block number is not a hex quantity")
)

// Poll asks the upstream once and records what it learns. On error the
// block stays what it was.
func (f *Finality) Poll(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	f.mu.Lock()
	buf := f.buf
	f.buf = nil
	f.mu.Unlock()
	n, err := f.poll(ctx, &buf)
	f.mu.Lock()
	f.buf = buf[:0]
	f.mu.Unlock()
	if err != nil {
		return err
	}
	f.Set(n)
	return nil
}

func (f *Finality) poll(ctx context.Context, buf *[]byte) (uint64, error) {
	res, err := f.call(ctx, (*buf)[:0], "eth_getBlockByNumber", []byte(`["finalized",false]`))
	*buf = res
	if err == nil && !isNull(res) {
		if r, n := blockRef(member(res, "number")); r == refNumber {
			return n, nil
		}
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	res, err = f.call(ctx, (*buf)[:0], "eth_blockNumber", nil)
	*buf = res
	if err != nil {
		return 0, errors.Join(errNoFinalized, err)
	}
	r, n := blockRef(res)
	if r != refNumber {
		return 0, errNotNumber
	}
	if n < f.depth {
		return 0, errNoFinalized
	}
	return n - f.depth, nil
}
