package client

// NOTE: a client over several endpoints. Each call picks an endpoint
// (pick: power of two choices scored by pending calls times recent
// latency, or least pending), skipping ejected ones; an endpoint is
// ejected after EjectAfter transport failures in a row for EjectFor,
// doubling with each ejection up to 30s, and re-admitted after it (one
// failure then ejects it again; a success clears its record). A call of
// a method the RetryPolicy declares idempotent fails over to another
// endpoint on a transport error (attempts and budget as for a Client),
// after the policy's backoff (so that the other connections to a server
// that just died notice it first), and is hedged (hedge.go) when
// PoolOptions asks for it. A call of any
// other method is sent once; it moves to another endpoint only when its
// endpoint refused it before sending anything (ErrDisconnected, a closed
// client, a refused dial). The endpoints' clients keep their own
// reconnecting; the pool sends through Client.send/wait directly, so a
// client's own Options.Retry does not apply inside a pool. Batches:
// poolbatch.go.

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/internal/rpcmsg"
)

// Balance is how a Pool picks the endpoint of a call.
type Balance uint8

const (
	// PowerOfTwo picks two endpoints at random and takes the one with
	// fewer calls pending, weighted by its recent latency (the default).
	PowerOfTwo Balance = iota
	// LeastPending takes the endpoint with the fewest calls pending.
	LeastPending
)

// PoolOptions configures a Pool; nil means the defaults.
type PoolOptions struct {
	// Balance: PowerOfTwo (default) or LeastPending.
	Balance Balance
	// Retry declares the idempotent methods and bounds their failover:
	// MaxAttempts endpoints at most (after its Backoff), and the Budget,
	// which hedges draw on too. When an endpoint dies, every call in
	// flight on it needs a retry at once: for none of them to fail,
	// BudgetBurst must cover the calls in flight. Nil: no method is idempotent;
	// every call is sent once.
	Retry *RetryPolicy
	// HedgeAfter turns hedging on: an idempotent call (or a batch of
	// them, Pool.NewBatch) unanswered after this long is sent to a second
	// endpoint too, and the first answer wins (the other call is
	// abandoned, and cancelled with $/cancelRequest where its client has
	// CancelNotify). 0: off.
	HedgeAfter time.Duration
	// HedgeQuantile, between 0 and 1 (0.95, say), hedges after that
	// quantile of the pool's recent latencies instead, never sooner than
	// HedgeAfter; until 1,000 calls have been measured, after HedgeAfter
	// (no hedge when it is 0).
	HedgeQuantile float64
	// EjectAfter is how many transport failures in a row eject an
	// endpoint (default 3); EjectFor how long the first ejection lasts
	// (default 1s; each next one doubles it, up to 30s).
	EjectAfter int
	EjectFor   time.Duration
}

// Defaults of PoolOptions.
const (
	DefaultEjectAfter = 3
	DefaultEjectFor   = time.Second
	maxEjectFor       = 30 * time.Second
	maxEndpoints      = 64
)

// Pool calls a set of endpoints, each a Client (of any transport), as one.
// It is safe for concurrent use.
type Pool struct {
	eps      []*endpoint
	balance  Balance
	retry    *retrier // nil: nothing idempotent
	attempts int
	hedge    hedger
	eject    int
	ejectFor time.Duration

	calls, batches, retries, failovers, failed atomic.Uint64
	scratch                                    sync.Pool // *[]byte for Call's results

	async    bool      // every endpoint is a stream or WebSocket (forward_async.go)
	forwards sync.Pool // *Forward
}

// endpoint is one client of a pool and its health.
type endpoint struct {
	c         *Client
	pending   atomic.Int64
	latency   atomic.Int64 // moving average, ns
	fails     atomic.Int32 // transport failures in a row
	ejections atomic.Int32 // in a row
	until     atomic.Int64 // ejected until (Unix ns)
	ok, bad   atomic.Uint64
}

// NewPool returns a pool over clients (1 to 64 of them), which it owns:
// Close closes them. Give stream and WebSocket clients Options.Reconnect
// so that an endpoint that comes back is used again; NewPool makes them
// fail fast (Reconnect.FailFast) while they redial, so that a call goes
// to another endpoint rather than wait.
func NewPool(clients []*Client, opts *PoolOptions) (*Pool, error) {
	if len(clients) == 0 || len(clients) > maxEndpoints {
		return nil, errors.New("client: NewPool: want 1 to 64 clients")
	}
	var o PoolOptions
	if opts != nil {
		o = *opts
	}
	p := &Pool{balance: o.Balance, eject: or(o.EjectAfter, DefaultEjectAfter), ejectFor: or(o.EjectFor, DefaultEjectFor)}
	p.retry = newRetrier(o.Retry)
	p.attempts = 1
	if p.retry != nil {
		p.attempts = p.retry.attempts
	}
	p.hedge.init(o.HedgeAfter, o.HedgeQuantile)
	for _, c := range clients {
		if s, ok := c.t.(interface{ setFailFast() }); ok {
			s.setFailFast()
		}
		p.async = c.t.stream() && (p.async || len(p.eps) == 0)
		e := &endpoint{c: c}
		e.latency.Store(int64(time.Millisecond))
		p.eps = append(p.eps, e)
	}
	return p, nil
}

// Close closes every client of the pool and returns the first error.
func (p *Pool) Close() error {
	var first error
	for _, e := range p.eps {
		if err := e.c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// CallRaw calls method with raw params on one of the endpoints, as
// Client.CallRaw does (it appends the raw result to dst). An idempotent
// method fails over to another endpoint and may be hedged. On the happy
// path (no failure, no hedge) it allocates nothing over streams and
// WebSockets.
func (p *Pool) CallRaw(ctx context.Context, dst []byte, method string, params []byte) ([]byte, error) {
	if err := checkParams(params); err != nil {
		return dst, err
	}
	if err := ctx.Err(); err != nil {
		return dst, err
	}
	return p.do(ctx, dst, method, params, nil, false)
}

// Call calls method with params and decodes the result into result, as
// Client.Call does, on one of the endpoints (see CallRaw).
func (p *Pool) Call(ctx context.Context, method string, params, result any) error {
	if err := rpcmsg.CheckResult(result); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	bp, _ := p.scratch.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	res, err := p.do(ctx, (*bp)[:0], method, nil, params, false)
	if err == nil {
		err = rpcmsg.DecodeResult(res, result)
	}
	if cap(res) <= maxKeptBuf {
		*bp = res[:0]
		p.scratch.Put(bp)
	}
	return err
}

// Notify sends a notification to one of the endpoints, once.
func (p *Pool) Notify(ctx context.Context, method string, params any) error {
	e := p.pick(0)
	return e.c.Notify(ctx, method, params)
}

// do is a call: attempts on endpoints until one answers or the policy
// says stop. With keep, an error response's object is appended to dst
// and returned with its error (ForwardRaw).
func (p *Pool) do(ctx context.Context, dst []byte, method string, raw []byte, params any, keep bool) ([]byte, error) {
	p.calls.Add(1)
	idem := p.retry.idempotent(method)
	if p.retry != nil {
		p.retry.budget.depositCall()
	}
	var tried uint64
	e := p.pick(tried)
	res, err := p.attempt(ctx, e, &tried, dst, method, raw, params, idem, keep)
	return p.again(ctx, 2, &tried, dst, method, raw, params, idem, keep, res, err)
}

// again goes on with a call whose last attempt (the n-1th) ended with res
// and err: more attempts while the policy allows, then the outcome,
// counted as failed when it is an error.
func (p *Pool) again(ctx context.Context, n int, tried *uint64, dst []byte, method string, raw []byte, params any, idem, keep bool, res []byte, err error) ([]byte, error) {
	for ; err != nil && ctx.Err() == nil; n++ {
		switch {
		case notSent(err) && n <= len(p.eps)+1: // safe for any method
		case idem && n <= p.attempts && p.retry.retryable(err):
			if !p.retry.budget.take() {
				n = p.attempts + 1
				continue
			}
			p.retries.Add(1)
			// A short wait: the other connections to a server that just
			// died notice it meanwhile, and are not picked.
			if !sleepCtx(ctx, p.retry.wait(n)) {
				continue
			}
		default:
			p.failed.Add(1)
			return kept(dst, res), err
		}
		p.failovers.Add(1)
		e := p.pick(*tried)
		res, err = p.attempt(ctx, e, tried, dst, method, raw, params, idem, keep)
	}
	if err != nil {
		p.failed.Add(1)
		return kept(dst, res), err
	}
	return res, nil
}

// kept is what a failed call returns: res when it holds an error object
// kept for ForwardRaw (an attempt's Res is nil without one), else dst.
func kept(dst, res []byte) []byte {
	if res != nil {
		return res
	}
	return dst
}

// notSent reports whether err says that nothing of the call was sent: it
// may go to another endpoint whatever its method.
func notSent(err error) bool {
	if errors.Is(err, ErrDisconnected) || errors.Is(err, ErrClosed) && !errors.Is(err, ErrConnectionLost) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// attempt makes one attempt on e (hedged when the pool hedges and the
// method is idempotent) and records its outcome.
func (p *Pool) attempt(ctx context.Context, e *endpoint, tried *uint64, dst []byte, method string, raw []byte, params any, idem, keep bool) ([]byte, error) {
	*tried |= p.bit(e)
	if idem && p.hedge.on() && len(p.eps) > 1 {
		return p.hedged(ctx, e, tried, dst, method, raw, params, keep)
	}
	c := e.c
	q := c.getCall()
	q.Dst, q.KeepError = dst, keep
	e.pending.Add(1)
	start := time.Now()
	err := c.do(ctx, q, method, raw, params)
	if err == nil {
		err = q.Err
	}
	res := q.Res
	putCall(q)
	e.pending.Add(-1)
	p.record(e, start, err)
	return res, err
}

// bit is e's bit in a set of tried endpoints.
func (p *Pool) bit(e *endpoint) uint64 {
	for i, x := range p.eps {
		if x == e {
			return 1 << i
		}
	}
	return 0
}

// record updates e's health after a call that started at start and ended
// with err, and the pool's latencies.
func (p *Pool) record(e *endpoint, start time.Time, err error) {
	if d, ok := p.health(e, start, err); ok {
		p.hedge.observe(d)
	}
}

// health updates e's health after an attempt (a call, or a batch) that
// started at start and ended with err, and returns its latency in ns and
// whether it was answered.
func (p *Pool) health(e *endpoint, start time.Time, err error) (int64, bool) {
	return p.healthOf(e, int64(time.Since(start)), err)
}

// healthOf is health for an attempt that took d ns.
func (p *Pool) healthOf(e *endpoint, d int64, err error) (int64, bool) {
	if err != nil && (transportErr(err) || errors.Is(err, ErrClosed)) {
		e.bad.Add(1)
		n := e.fails.Add(1)
		if n >= int32(p.eject) || e.ejections.Load() > 0 { // a re-admitted endpoint goes at its first failure
			k := e.ejections.Add(1)
			d := min(p.ejectFor<<min(k-1, 10), maxEjectFor)
			e.until.Store(time.Now().Add(d).UnixNano())
			e.fails.Store(0)
		}
		return 0, false
	}
	if err != nil && errors.Is(err, context.Canceled) {
		return 0, false
	}
	e.ok.Add(1)
	if e.fails.Load() != 0 {
		e.fails.Store(0)
	}
	if e.ejections.Load() != 0 {
		e.ejections.Store(0)
	}
	old := e.latency.Load()
	e.latency.Store(old + (d-old)/8)
	return d, true
}

// slower makes e's recent latency at least d's share: an abandoned
// (hedged) attempt took at least d, so that the balancer sends a slow
// endpoint less.
func (e *endpoint) slower(d time.Duration) {
	if old := e.latency.Load(); int64(d) > old {
		e.latency.Store(old + (int64(d)-old)/8)
	}
}

// usable reports whether e may be picked at now: not ejected, and its
// client not redialling or closed.
func (e *endpoint) usable(now int64) bool {
	return e.until.Load() <= now && e.c.State() == Connected
}

// score orders endpoints for PowerOfTwo: pending calls (plus one) times
// latency.
func (e *endpoint) score() int64 { return (e.pending.Load() + 1) * max(e.latency.Load(), 1000) }

// pick returns the endpoint of the next attempt, among the usable ones
// not in tried if any, else among those not in tried, else any.
func (p *Pool) pick(tried uint64) *endpoint {
	n := len(p.eps)
	if n == 1 {
		return p.eps[0]
	}
	now := time.Now().UnixNano()
	ok := func(i int) bool { return tried&(1<<i) == 0 && p.eps[i].usable(now) }
	if p.balance == PowerOfTwo {
		i := rand.IntN(n)
		j := rand.IntN(n - 1)
		if j >= i {
			j++
		}
		switch oi, oj := ok(i), ok(j); {
		case oi && oj:
			// One pick in 32 ignores the scores, so that an endpoint
			// whose latency once was high is measured again.
			if j < i && rand.IntN(32) == 0 || p.eps[j].score() < p.eps[i].score() {
				return p.eps[j]
			}
			return p.eps[i]
		case oi:
			return p.eps[i]
		case oj:
			return p.eps[j]
		}
	}
	best, off := -1, rand.IntN(n)
	for k := range n {
		i := (k + off) % n
		if ok(i) && (best < 0 || p.eps[i].pending.Load() < p.eps[best].pending.Load()) {
			best = i
		}
	}
	if best >= 0 {
		return p.eps[best]
	}
	// Nothing usable and untried: an untried one (the soonest re-admitted),
	// else any.
	for k := range n {
		i := (k + off) % n
		if tried&(1<<i) == 0 && (best < 0 || p.eps[i].until.Load() < p.eps[best].until.Load()) {
			best = i
		}
	}
	if best >= 0 {
		return p.eps[best]
	}
	return p.eps[off]
}

// PoolStats counts what a Pool did.
type PoolStats struct {
	Calls     uint64 // calls made (CallRaw and Call)
	Batches   uint64 // batches sent (Pool.NewBatch)
	Retries   uint64 // extra attempts of idempotent calls and batches (failovers on errors)
	Failovers uint64 // attempts moved to another endpoint (retries, and calls and batches not sent)
	Hedges    uint64 // hedged attempts sent
	HedgeWins uint64 // hedged attempts that answered first
	Failed    uint64 // calls and batches that returned an error
	Endpoints []EndpointStats
}

// EndpointStats is the state of one endpoint of a Pool.
type EndpointStats struct {
	Pending int64
	Latency time.Duration // moving average of its answers
	Ejected bool
	OK      uint64 // attempts answered
	Failed  uint64 // attempts that failed in the transport
	State   State
}

// Stats returns the pool's counters and its endpoints' state.
func (p *Pool) Stats() PoolStats {
	now := time.Now().UnixNano()
	s := PoolStats{Calls: p.calls.Load(), Batches: p.batches.Load(), Retries: p.retries.Load(), Failovers: p.failovers.Load(),
		Hedges: p.hedge.sent.Load(), HedgeWins: p.hedge.wins.Load(), Failed: p.failed.Load()}
	for _, e := range p.eps {
		s.Endpoints = append(s.Endpoints, EndpointStats{Pending: e.pending.Load(), Latency: time.Duration(e.latency.Load()),
			Ejected: e.until.Load() > now, OK: e.ok.Load(), Failed: e.bad.Load(), State: e.c.State()})
	}
	return s
}
