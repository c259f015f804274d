package mcpbench

import (
	"context"
	"time"
)

// Key names one row of the results: a server on a revision.
type Key struct{ Server, Version string }

// Row gathers a row's measurements, one per round (progress: every call).
type Row struct {
	ReqPerSec, Mallocs, Bytes []float64
	SessRSS, SessHeap         []float64
	FirstProgress             []time.Duration
}

// Results are the rows of a run, in the order of the servers and versions.
type Results struct {
	Keys []Key
	Rows map[Key]*Row
}

func (r *Results) row(k Key) *Row {
	if r.Rows == nil {
		r.Rows = map[Key]*Row{}
	}
	if r.Rows[k] == nil {
		r.Rows[k] = &Row{}
		r.Keys = append(r.Keys, k)
	}
	return r.Rows[k]
}

// measurement is one kind of run on a fresh server process.
type measurement struct {
	name     string
	sessions bool // needs sessions (2025-11-25)
	run      func(ctx context.Context, p *Proc, version string, cfg Config, row *Row) error
}

var measurements = []measurement{
	{"echo", false, func(ctx context.Context, p *Proc, v string, cfg Config, row *Row) error {
		t, err := RunThroughput(ctx, p, v, cfg)
		row.ReqPerSec, row.Mallocs, row.Bytes = append(row.ReqPerSec, t.ReqPerSec()),
			append(row.Mallocs, t.Mallocs), append(row.Bytes, t.Bytes)
		return err
	}},
	{"countdown", false, func(ctx context.Context, p *Proc, v string, cfg Config, row *Row) error {
		d, err := RunProgress(ctx, p, v, cfg)
		row.FirstProgress = append(row.FirstProgress, d...)
		return err
	}},
	{"sessions", true, func(ctx context.Context, p *Proc, v string, cfg Config, row *Row) error {
		s, err := RunSessions(ctx, p, v, cfg)
		row.SessRSS, row.SessHeap = append(row.SessRSS, s.RSS), append(row.SessHeap, s.Heap)
		return err
	}},
}

// Run measures every server on every version for rounds rounds. Within a
// round each measurement runs on each server in turn, each in a fresh
// process, the servers' order rotating by one from round to round. logf
// reports each run.
func Run(ctx context.Context, specs []Spec, versions []string, cfg Config, rounds int,
	logf func(format string, args ...any)) (*Results, error) {
	res := &Results{}
	for _, s := range specs {
		for _, v := range versions {
			res.row(Key{s.Name, v})
		}
	}
	for round := range rounds {
		for _, v := range versions {
			for _, m := range measurements {
				if m.sessions && v == V20260728 {
					continue
				}
				for i := range specs {
					s := specs[(i+round)%len(specs)]
					start := time.Now()
					if err := runOne(ctx, s, v, cfg, m, res.row(Key{s.Name, v})); err != nil {
						return res, err
					}
					logf("round %d: %s %s %s (%.1f s)", round+1, s.Name, v, m.name, time.Since(start).Seconds())
				}
			}
		}
	}
	return res, nil
}

func runOne(ctx context.Context, s Spec, v string, cfg Config, m measurement, row *Row) error {
	p, err := Start(s, v)
	if err != nil {
		return err
	}
	defer p.Stop()
	if err := m.run(ctx, p, v, cfg, row); err != nil {
		return wrapErr(s.Name+" "+v+" "+m.name, err)
	}
	return nil
}

type runErr struct {
	what string
	err  error
}

func (e *runErr) Error() string { return e.what + ": " + e.err.Error() }
func (e *runErr) Unwrap() error { return e.err }

func wrapErr(what string, err error) error { return &runErr{what, err} }
