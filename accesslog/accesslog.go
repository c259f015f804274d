// Package accesslog logs a jetrpc engine's calls with log/slog: an
// optional record per call at Debug level and a warning for each call
// slower than a threshold.
//
// [New] returns a dispatch.Observer; set it in dispatch.Options.Observer,
// with dispatch.Observers to combine it with others (package metrics):
//
//	obs := accesslog.New(logger, &accesslog.Options{SlowCall: 500 * time.Millisecond})
//	e := dispatch.New(&dispatch.Options{Observer: dispatch.Observers(m, obs)})
//
// A record has the attributes method, id (the raw JSON id; absent for a
// notification), duration, code (0 for a result), and, when the call came
// through a transport that says so (package netserver: see
// dispatch.Origin), transport and remote. When the logger's level is above
// Debug and the call is not slow, a call costs one Logger.Enabled check: no
// formatting, no allocation. With Options.Sample only 1 in N ordinary
// calls is logged, every error and slow call always; Options.Params and
// ResultSize add the params (through a Redact hook) and the result's size.
package accesslog

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
)

// Options configures New. A nil *Options, and every zero field, means the
// default.
type Options struct {
	// SlowCall: a call whose handler runs at least this long is logged at
	// Warn level, whatever the per-call level (default 0: none).
	SlowCall time.Duration
	// Level of the record of every call (default slog.LevelDebug): it is
	// written when the logger is enabled for it.
	Level slog.Level
	// Sample logs 1 in Sample of the ordinary calls (0 or 1: every one);
	// every error and every slow call is logged whatever the count, so
	// that at 100k calls a second the log keeps what must be seen. The
	// count is per method (an atomic add per call). With Sample above 1
	// the default Level is slog.LevelInfo.
	Sample int
	// Params adds the request's params to each record ("params": the raw
	// JSON, or what Redact returns), and ResultSize its result's bytes
	// ("result_bytes").
	Params, ResultSize bool
	// Redact, with Params, returns what to log of a method's params (for
	// example with secrets masked); params are valid only during the call.
	// Nil: the params as received.
	Redact func(method string, params []byte) []byte
}

// Messages of the records.
const (
	MsgCall     = "jetrpc call"
	MsgSlowCall = "jetrpc slow call"
)

// New returns an Observer that logs calls to l (slog.Default() when nil).
func New(l *slog.Logger, opts *Options) dispatch.Observer {
	if l == nil {
		l = slog.Default()
	}
	lg := &logger{l: l, level: slog.LevelDebug}
	if opts != nil {
		lg.slow = opts.SlowCall
		lg.sample = uint64(max(opts.Sample, 1))
		lg.params, lg.size, lg.redact = opts.Params, opts.ResultSize, opts.Redact
		switch {
		case opts.Level != 0:
			lg.level = opts.Level
		case opts.Sample > 1: // sampled: meant to be seen at a production level
			lg.level = slog.LevelInfo
		}
	}
	return lg
}

type logger struct {
	l      *slog.Logger
	slow   time.Duration
	level  slog.Level
	sample uint64 // 1 in sample ordinary calls
	params bool
	size   bool
	redact func(string, []byte) []byte
}

// Method returns the logger of one method's calls.
func (lg *logger) Method(name string) dispatch.MethodObserver {
	return &method{lg: lg, name: name}
}

// Message and Event log nothing.
func (lg *logger) Message(in, out, batch int) {}
func (lg *logger) Event(ev dispatch.Event)    {}

type method struct {
	lg    *logger
	name  string        // dispatch.UnknownMethod for unknown methods: the request's name is logged
	calls atomic.Uint64 // ordinary calls, for Sample
}

func (m *method) Begin(context.Context) {}

// End logs the call if it was slow or the logger is enabled for the
// per-call level.
func (m *method) End(ctx context.Context, c dispatch.CallEnd) {
	lg := m.lg
	level, msg := lg.level, MsgCall
	if lg.slow > 0 && c.Duration >= lg.slow {
		level, msg = slog.LevelWarn, MsgSlowCall
		if lg.level > level {
			level = lg.level
		}
	}
	if !lg.l.Enabled(ctx, level) {
		return
	}
	if lg.sample > 1 && msg == MsgCall && c.Code == 0 && m.calls.Add(1)%lg.sample != 1 {
		return // an ordinary call not sampled: errors and slow calls always are
	}
	m.log(ctx, level, msg, c)
}

// log writes the record (the slow path: it allocates).
func (m *method) log(ctx context.Context, level slog.Level, msg string, c dispatch.CallEnd) {
	name := m.name
	if name == dispatch.UnknownMethod {
		name = string(dispatch.MethodName(ctx))
	}
	attrs := make([]slog.Attr, 0, 6)
	attrs = append(attrs, slog.String("method", name))
	if id := dispatch.RequestID(ctx); id != nil {
		attrs = append(attrs, slog.String("id", string(id)))
	}
	attrs = append(attrs, slog.Duration("duration", c.Duration), slog.Int("code", int(c.Code)))
	if o := dispatch.OriginOf(ctx); o != nil {
		attrs = append(attrs, slog.String("transport", o.Transport))
		if o.Remote != nil {
			attrs = append(attrs, slog.String("remote", o.Remote.String()))
		}
	}
	if m.lg.params && c.Params != nil {
		p := c.Params
		if m.lg.redact != nil {
			p = m.lg.redact(name, p)
		}
		attrs = append(attrs, slog.String("params", string(p)))
	}
	if m.lg.size && !c.Notification {
		attrs = append(attrs, slog.Int("result_bytes", c.ResultSize))
	}
	m.lg.l.LogAttrs(ctx, level, msg, attrs...)
}
