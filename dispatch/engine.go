package dispatch

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/pool"
)

// Registration errors.
var (
	ErrReserved  = errors.New("dispatch: method names starting with \"rpc.\" are reserved")
	ErrDuplicate = errors.New("dispatch: method already registered")
	ErrFrozen    = errors.New("dispatch: engine already serving; register before the first message")
	ErrBadMethod = errors.New("dispatch: method needs a non-empty name and a handler")
)

// RegisterError names the method a registration error is about.
type RegisterError struct {
	Name string // the method's name
	Err  error  // ErrReserved, ErrDuplicate, ErrFrozen or ErrBadMethod
}

// Error returns Err's text with the method's name.
func (e *RegisterError) Error() string { return e.Err.Error() + ": " + strconv.Quote(e.Name) }

// Unwrap returns Err, for errors.Is.
func (e *RegisterError) Unwrap() error { return e.Err }

// Engine holds the method table and processes messages. Create it with [New],
// register methods, then call Process from any number of goroutines.
type Engine struct {
	_ noCopy

	maxBatch     int
	maxDepth     int
	maxBatchResp int
	maxResp      int // Options.MaxResponse
	fanOut       int
	callTimeout  time.Duration
	strict       bool                     // Options.StrictParams
	timeouts     map[string]time.Duration // Options.MethodTimeouts
	costs        map[string]int           // Options.MethodCosts
	log          *slog.Logger

	mu      sync.Mutex
	frozen  atomic.Bool
	methods []Method
	mws     []Middleware
	table   table
	all     []*method    // the frozen methods, by idx
	sets    []*MethodSet // made before Freeze: compiled by it (policy.go)

	onFreeze []FreezeHook // Freeze's hooks (describe.go)

	states  sync.Pool
	workers *pool.Workers
	ctx     context.Context
	cancel  context.CancelFunc

	invalidData [decode.ReasonBatchLimit + 1][]byte // error.data per Reason, prebuilt
	depthData   []byte
	conds       condErrs      // the engine's conditions, with the endpoint's codes (codes.go)
	errTooLarge *encode.Error // a batch member over MaxBatchResponse
	errRespSize *encode.Error // a response over MaxResponse
	errTimeout  *encode.Error // a call over CallTimeout
	errResult   *encode.Error // a result that is not one valid JSON value
	dropped     atomic.Uint64

	fwd        Forwarder      // Options.Forward (forward.go)
	obs        Observer       // nil: nothing observed (observe.go)
	unknownObs MethodObserver // the calls of unknown methods
}

// method is a frozen table entry.
type method struct {
	e          *Engine // its engine (a ResultWriter's limits and log)
	name       string
	nameBytes  []byte // name, for MethodName
	h          Handler
	fn         HandlerFunc // h, when it is one: called directly, not through ServeRPC
	inline     bool
	concurrent bool
	trusted    bool           // the result needs no check (Method.TrustedResult, or Typed)
	streams    bool           // Method.Streams
	bare       bool           // inline, under no timeout: nothing to time or bound (observed calls it)
	direct     bool           // bare and unobserved: serve calls it (nothing to time, bound or observe)
	idx        int            // its index in Engine.all (MethodSet's bit)
	price      int            // Method.Cost, at least 1
	timeout    time.Duration  // Method.Timeout, else CallTimeout for a method not Inline (0: none)
	errTimeout *encode.Error  // the answer to a call over timeout
	badResult  atomic.Int64   // when an invalid result was last logged (unix ns)
	cost       cost           // learned running time, when neither Inline nor Concurrent (cost.go)
	obs        MethodObserver // nil without an Observer (observe.go)
	timeMask   uint32         // a call is timed when rand&timeMask == 0 (TimingObserver)
	counts     *CallCounts    // where the calls not timed are counted (CountingObserver), or nil
	warm       atomic.Uint32  // calls timed while warming up, up to warmCalls (TimingObserver)
}

// New returns an Engine configured by opts (nil means the defaults).
func New(opts *Options) *Engine {
	e := &Engine{
		maxBatch:     opts.maxBatch(),
		maxDepth:     opts.maxDepth(),
		maxBatchResp: opts.maxBatchResponse(),
		maxResp:      opts.maxResponse(),
		fanOut:       opts.batchFanOut(),
		callTimeout:  opts.callTimeout(),
		strict:       opts != nil && opts.StrictParams,
		log:          opts.logger(),
		obs:          opts.observer(),
		workers: pool.NewWorkers(&pool.WorkersOptions{
			Max:         opts.maxWorkers(),
			IdleTimeout: opts.workerIdle(),
			Keep:        opts.idleWorkers(),
		}),
	}
	if opts != nil {
		e.timeouts, e.costs = opts.MethodTimeouts, opts.MethodCosts
		e.fwd = opts.Forward
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.states.New = func() any { return e.newState() }
	for r := decode.ReasonNone; r <= decode.ReasonBatchLimit; r++ {
		text := r.String()
		if r == decode.ReasonBatchLimit {
			text = "batch has more than " + strconv.Itoa(e.maxBatch) + " members"
		}
		e.invalidData[r] = encode.AppendString(nil, text)
	}
	e.depthData = encode.AppendString(nil, "nesting deeper than "+strconv.Itoa(e.maxDepth))
	e.conds = newCondErrs(opts.codes(), func(c encode.Code) []byte {
		if c == CodeResponseTooLarge {
			return encode.AppendString(nil, "batch response over "+strconv.Itoa(e.maxBatchResp)+" bytes")
		}
		return nil
	})
	e.errTooLarge = e.conditionError(CodeResponseTooLarge)
	e.errRespSize = NewError(e.errTooLarge.Code, e.errTooLarge.Message,
		encode.AppendString(nil, "response over "+strconv.Itoa(e.maxResp)+" bytes"))
	timeout := e.conditionError(encode.CodeTimeout)
	e.errTimeout = NewError(timeout.Code, timeout.Message,
		encode.AppendString(nil, "call took longer than "+e.callTimeout.String()))
	e.errResult = NewError(encode.CodeInternalError, encode.CodeInternalError.String(),
		encode.AppendString(nil, "the handler's result is not one valid JSON value"))
	return e
}

// Register adds a method served by h. See [Engine.RegisterMethod].
func (e *Engine) Register(name string, h Handler) error {
	return e.RegisterMethod(Method{Name: name, Handler: h})
}

// RegisterMethod adds a method. It fails for an empty name or nil handler, a
// reserved "rpc." name, a name registered before, or once the engine froze.
func (e *Engine) RegisterMethod(m Method) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var err error
	switch {
	case e.frozen.Load():
		err = ErrFrozen
	case m.Name == "" || m.Handler == nil:
		err = ErrBadMethod
	case strings.HasPrefix(m.Name, "rpc."):
		err = ErrReserved
	}
	for i := range e.methods {
		if err == nil && e.methods[i].Name == m.Name {
			err = ErrDuplicate
		}
	}
	if err != nil {
		if err == ErrFrozen { // a method that will answer -32601 for good: say so loudly
			e.log.Error("jetrpc: method registered after the engine started serving; it will not be served",
				"method", m.Name)
		}
		return &RegisterError{Name: m.Name, Err: err}
	}
	e.methods = append(e.methods, m)
	return nil
}

// Use adds middleware, applied to every method when the table freezes. The
// first middleware added is the outermost.
func (e *Engine) Use(mw ...Middleware) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.frozen.Load() {
		return ErrFrozen
	}
	e.mws = append(e.mws, mw...)
	return nil
}

// Freeze builds the method table. Process calls it on first use; calling it
// earlier moves that work to start-up. Registration fails afterwards.
func (e *Engine) Freeze() {
	if e.frozen.Load() {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.frozen.Load() {
		return
	}
	ms := make([]*method, 0, len(e.methods))
	for _, m := range e.withHooks() {
		if t, ok := e.timeouts[m.Name]; ok {
			m.Timeout = t
		}
		if c, ok := e.costs[m.Name]; ok {
			m.Cost = c
		}
		h := m.Handler
		if m.StrictParams || e.strict {
			h = strictOf(h)
		}
		for i := len(e.mws) - 1; i >= 0; i-- {
			h = e.mws[i](m.Name, h)
		}
		trusted := m.TrustedResult || len(e.mws) == 0 && trustsResult(m.Handler)
		md := &method{e: e, name: m.Name, nameBytes: []byte(m.Name), h: h, inline: m.Inline, concurrent: m.Concurrent, trusted: trusted}
		md.idx, md.price = len(ms), max(m.Cost, 1)
		e.setTimeout(md, m)
		md.fn, _ = h.(HandlerFunc)
		md.streams = m.Streams
		md.cost.never.Store(m.CallsPeer || m.Streams)
		ms = append(ms, md)
	}
	e.resolveObservers(ms)
	for _, md := range ms {
		md.bare = md.inline && md.timeout == 0
		md.direct = md.bare && md.obs == nil
	}
	e.table = newTable(ms)
	e.all = ms
	for _, set := range e.sets {
		set.compile(ms)
	}
	e.sets = nil
	e.frozen.Store(true)
}

// setTimeout gives md its bound: m.Timeout, else CallTimeout unless m is
// Inline; a bound of its own gets an error.data of its own.
func (e *Engine) setTimeout(md *method, m Method) {
	switch {
	case m.Timeout > 0 && m.Timeout != e.callTimeout:
		md.timeout = m.Timeout
		t := e.errTimeout
		md.errTimeout = NewError(t.Code, t.Message, encode.AppendString(nil, "call took longer than "+m.Timeout.String()))
	case m.Timeout > 0 || !m.Inline:
		md.timeout, md.errTimeout = e.callTimeout, e.errTimeout
	}
}

// Context returns the engine's base context, the parent of every handler's
// context; it is cancelled by Close.
func (e *Engine) Context() context.Context { return e.ctx }

// Close cancels the context of every running handler and stops the idle
// worker goroutines, waiting for running batch members to return. Process
// must not be called after Close.
func (e *Engine) Close() {
	e.cancel()
	e.workers.Stop()
}

// Dropped returns how many Response messages arrived that no caller was
// waiting for (they are never answered).
func (e *Engine) Dropped() uint64 { return e.dropped.Load() }

// noCopy lets go vet flag copies of an Engine.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}
