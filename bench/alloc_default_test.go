//go:build !race

package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
)

// point is a struct of numbers, the params and result of a Typed method.
type point struct {
	X, Y float64
	N    int  `json:"n"`
	OK   bool `json:"ok"`
}

// TestTCPAllocsPerCall: over the connection core (netserver.New on
// loopback TCP, NDJSON, 4 connections x 16 calls in flight, driven in this
// process by the load generator, which allocates nothing per call), a call
// allocates nothing in steady state, whichever way its method is
// registered: the raw demo handlers marked Inline (demo.Register) and
// without (demo.Default), and Typed handlers (demo.Typed) of numbers and
// of structs of numbers, by position, by name and in a batch.
func TestTCPAllocsPerCall(t *testing.T) {
	cases := map[string]string{}
	for _, c := range bench.Cases() {
		cases[c.Name] = string(c.Msg)
	}
	for _, mode := range []demo.Mode{demo.Inline, demo.Default} {
		for _, name := range []string{"small", "named", "batch10", "notification"} {
			checkTCPAllocs(t, mode, name, cases[name])
		}
		checkTCPAllocs(t, mode, "sum", `{"jsonrpc":"2.0","method":"sum","params":[1,2.5,-3],"id":1}`)
		checkTCPAllocs(t, mode, "get_data", `{"jsonrpc":"2.0","method":"get_data","id":"x"}`)
	}
	for _, name := range []string{"small", "named", "batch10"} { // subtract: demo.SubtractArgs, a struct of ints
		checkTCPAllocs(t, demo.Typed, name, cases[name])
	}
	checkTCPAllocs(t, demo.Typed, "number", `{"jsonrpc":"2.0","method":"half","params":[7],"id":1}`)
	checkTCPAllocs(t, demo.Typed, "point", `{"jsonrpc":"2.0","method":"point","params":{"X":1.5,"Y":-2,"n":3,"ok":true},"id":1}`)
	checkTCPAllocs(t, demo.Typed, "point-positional", `{"jsonrpc":"2.0","method":"point","params":[1.5,-2,3,true],"id":"p"}`)
	checkTCPAllocs(t, demo.Typed, "fixed-notification", `{"jsonrpc":"2.0","method":"fixed","params":[1,2,3,4,5]}`)
}

// checkTCPAllocs serves the demo methods registered the way mode says, and
// registerNumbers' methods, over netserver.New on loopback, sends msg
// (with fresh ids) on 4 connections x 16 in flight, and fails t when a call
// (each call of a batch; a notification) costs 0.05 allocations or more
// in the process in the best of three measurements: zero per call, up to
// the runtime's and the worker pool's noise, which allocsPerCall leaves
// after the per-run costs cancel out (the call contexts' chunks, one
// allocation every 64 calls, are about 0.016). A notification is sent
// paired with a call, whose answer comes once the server has taken the
// notification in.
func checkTCPAllocs(t *testing.T, mode demo.Mode, name, msg string) {
	t.Helper()
	t.Run(mode.String()+"/"+name, func(t *testing.T) {
		e := newEngineAs(t, mode)
		registerNumbers(t, e)
		s := servers{}
		srv := netserver.New(e, nil)
		s.start(t, "jetrpc", srv.Serve, shutdown(srv.Shutdown))
		req, err := load.NewRequest(name, []byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		reqs, per := []load.Request{req}, float64(max(req.Holes(), 1))
		if req.Holes() == 0 {
			// half: a Typed method of numbers in every mode (get_data's
			// Typed result, []any, allocates by itself)
			call, err := load.NewRequest("half", []byte(`{"jsonrpc":"2.0","method":"half","params":[1],"id":1}`))
			if err != nil {
				t.Fatal(err)
			}
			reqs = append(reqs, call)
		}
		// Best of three: an allocation a call makes shows in every
		// measurement; what the machine's load makes now and then (a
		// method unlearned by a slow run on a busy machine, its batches'
		// members sent to the workers a while, which start goroutines
		// and slots) does not.
		got := 1.0
		for range 3 {
			n := allocsPerCall(t, load.Config{Addr: s["jetrpc"], Transport: load.TCP, Conns: 4, Pipeline: 16,
				Requests: reqs}) / per
			t.Logf("%.4f allocations per call", n)
			if got = min(got, n); got < 0.05 {
				break
			}
		}
		if got >= 0.05 {
			t.Errorf("%.4f allocations per call in the best of 3 measurements, want 0", got)
		}
	})
}

// registerNumbers registers, the default way (plain Register), Typed
// methods of numbers: half (float64 -> float64), point (point -> point)
// and fixed ([5]int -> null).
func registerNumbers(t *testing.T, e *dispatch.Engine) {
	t.Helper()
	for name, h := range map[string]dispatch.Handler{
		"half":  dispatch.Typed(func(_ context.Context, x float64) (float64, error) { return x / 2, nil }),
		"point": dispatch.Typed(func(_ context.Context, p point) (point, error) { return p, nil }),
		"fixed": dispatch.Typed(func(_ context.Context, _ [5]int) (any, error) { return nil, nil }),
	} {
		if err := e.Register(name, h); err != nil {
			t.Fatal(err)
		}
	}
}

// allocsPerCall runs cfg's requests against its server: 2,000 to warm the
// pools, then a run of 10,000 and one of 60,000, every request answered
// well (or sent, for a notification). It returns the process's allocations
// per request (a batch counts one) of the difference between the two, so that what a run costs
// whatever its length (dialling, each connection's set-up on both sides,
// the generator's state) cancels out.
func allocsPerCall(t *testing.T, cfg load.Config) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(n int64) uint64 {
		cfg.Count = n
		before := mallocs()
		res, err := load.Run(ctx, cfg)
		allocs := mallocs() - before
		if err != nil || res.Failed() > 0 || res.Done() != n {
			t.Fatalf("run: %v, %+v", err, res.Counts)
		}
		return allocs
	}
	run(2000)
	const short, long = 10000, 60000
	a, b := run(short), run(long)
	return (float64(b) - float64(a)) / (long - short)
}
