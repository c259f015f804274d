package client

// NOTE: the retry policy. A call is sent again only when its method is
// declared idempotent, its error is one the policy retries (a transport
// error, or a listed JSON-RPC code), attempts remain, its context has not
// ended, and the retry budget has a token: every call deposits Budget
// tokens (up to BudgetBurst), every extra attempt takes one, so extra
// attempts stay below Budget times the calls plus BudgetBurst however many
// endpoints fail (as gRPC's retry throttling and Envoy's retry budgets
// bound them). The happy path costs one atomic load.

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/httpc"
)

// RetryPolicy says which calls are sent again, how often and how soon
// (Options.Retry, PoolOptions.Retry). A call of a method it does not
// declare idempotent is never sent twice.
type RetryPolicy struct {
	// Idempotent lists the methods that are safe to send more than once:
	// names, or prefixes ending in "*" ("eth_get*"); "*" alone is every
	// method.
	Idempotent []string
	// MaxAttempts is the number of attempts of a call, the first
	// included (default 3; 1 turns retries off).
	MaxAttempts int
	// Backoff is the wait before the second attempt (default 10ms), each
	// later one doubles it up to MaxBackoff (default 1s); every wait is
	// jittered (between half and all of it). A pool sends the next
	// attempt to another endpoint at once, without waiting.
	Backoff, MaxBackoff time.Duration
	// Codes lists JSON-RPC error codes that are retried, such as -32005
	// (a server's "Limit exceeded"). Transport errors are always retried:
	// a lost connection (ErrConnectionLost, ErrDisconnected), a refused
	// dial, an HTTP connection closed before the answer, HTTP 429, 502,
	// 503 and 504.
	Codes []int
	// Budget bounds the extra attempts: at most this fraction of the
	// calls made, plus BudgetBurst (defaults 0.1 and 10). A negative
	// Budget means no bound.
	Budget      float64
	BudgetBurst int
}

// Defaults of RetryPolicy.
const (
	DefaultRetryAttempts    = 3
	DefaultRetryBackoff     = 10 * time.Millisecond
	DefaultRetryMaxBackoff  = time.Second
	DefaultRetryBudget      = 0.1
	DefaultRetryBudgetBurst = 10
)

// retrier is a RetryPolicy made ready: methods in a map, the budget.
type retrier struct {
	exact    map[string]bool
	prefixes []string
	all      bool
	attempts int
	backoff  time.Duration
	maxBack  time.Duration
	codes    []encode.Code
	budget   budget
}

func newRetrier(p *RetryPolicy) *retrier {
	if p == nil {
		return nil
	}
	r := &retrier{
		exact:    map[string]bool{},
		attempts: or(p.MaxAttempts, DefaultRetryAttempts),
		backoff:  or(p.Backoff, DefaultRetryBackoff),
		maxBack:  or(p.MaxBackoff, DefaultRetryMaxBackoff),
	}
	for _, m := range p.Idempotent {
		switch {
		case m == "*":
			r.all = true
		case strings.HasSuffix(m, "*"):
			r.prefixes = append(r.prefixes, strings.TrimSuffix(m, "*"))
		default:
			r.exact[m] = true
		}
	}
	for _, c := range p.Codes {
		r.codes = append(r.codes, encode.Code(c))
	}
	ratio, burst := p.Budget, or(p.BudgetBurst, DefaultRetryBudgetBurst)
	if ratio == 0 {
		ratio = DefaultRetryBudget
	}
	r.budget.init(ratio, burst)
	return r
}

// idempotent reports whether method is declared safe to repeat.
func (r *retrier) idempotent(method string) bool {
	if r == nil {
		return false
	}
	if r.all || r.exact[method] {
		return true
	}
	for _, p := range r.prefixes {
		if strings.HasPrefix(method, p) {
			return true
		}
	}
	return false
}

// retryable reports whether err is one the policy retries.
func (r *retrier) retryable(err error) bool {
	if transportErr(err) {
		return true
	}
	if len(r.codes) > 0 {
		var e *encode.Error
		if errors.As(err, &e) {
			for _, c := range r.codes {
				if e.Code == c {
					return true
				}
			}
		}
	}
	return false
}

// transportErr reports whether err is a failure of the transport, not an
// answer of the server, nor the caller's context.
func transportErr(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, ErrConnectionLost) || errors.Is(err, ErrDisconnected) ||
		errors.Is(err, httpc.ErrConnectionClosed) || errors.Is(err, httpc.ErrNoFreeConns) {
		return true
	}
	var he *HTTPError
	if errors.As(err, &he) {
		switch he.StatusCode {
		case 429, 502, 503, 504:
			return true
		}
		return false
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// wait returns the jittered backoff before attempt n (2 for the first
// retry).
func (r *retrier) wait(n int) time.Duration {
	d := r.backoff
	for i := 2; i < n && d < r.maxBack; i++ {
		d *= 2
	}
	d = min(d, r.maxBack)
	return d/2 + rand.N(d/2+1)
}

// budget is a token bucket in thousandths of a token.
type budget struct {
	tokens  atomic.Int64
	deposit int64 // per call
	max     int64
	off     bool // no bound
	retries atomic.Uint64
	denied  atomic.Uint64
}

func (b *budget) init(ratio float64, burst int) {
	if ratio < 0 {
		b.off = true
		return
	}
	b.deposit, b.max = int64(ratio*1000), int64(burst)*1000
	b.tokens.Store(b.max)
}

// depositCall adds a call's share of tokens.
func (b *budget) depositCall() {
	if b.off || b.tokens.Load() >= b.max {
		return
	}
	if n := b.tokens.Add(b.deposit); n > b.max {
		b.tokens.CompareAndSwap(n, b.max)
	}
}

// take takes a token for an extra attempt and reports whether there was
// one.
func (b *budget) take() bool {
	if b.off {
		b.retries.Add(1)
		return true
	}
	for {
		n := b.tokens.Load()
		if n < 1000 {
			b.denied.Add(1)
			return false
		}
		if b.tokens.CompareAndSwap(n, n-1000) {
			b.retries.Add(1)
			return true
		}
	}
}

// retryCall sends p again while the policy allows, after its attempt
// failed with err; it returns the last error (nil: p holds the answer).
func (c *Client) retryCall(ctx context.Context, p *call, method string, raw []byte, params any, err error) error {
	r := c.retry
	if !r.idempotent(method) {
		return err
	}
	dst := p.Dst
	for n := 2; n <= r.attempts && r.retryable(err) && ctx.Err() == nil; n++ {
		if !r.budget.take() {
			break
		}
		if !sleepCtx(ctx, r.wait(n)) {
			break
		}
		p.renew(c)
		p.Dst, p.Res, p.Err = dst, nil, nil
		if err = c.do(ctx, p, method, raw, params); err == nil {
			err = p.Err
		}
	}
	return err
}

// sleepCtx waits d, and reports false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// RetryStats counts what a retry policy did.
type RetryStats struct {
	Retries uint64 // extra attempts sent
	Denied  uint64 // extra attempts the budget refused
}

// RetryStats returns what the client's retry policy did (zero without
// one).
func (c *Client) RetryStats() RetryStats {
	if c.retry == nil {
		return RetryStats{}
	}
	return RetryStats{Retries: c.retry.budget.retries.Load(), Denied: c.retry.budget.denied.Load()}
}
