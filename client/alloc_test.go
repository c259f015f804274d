//go:build !race

package client_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/frame"
)

// TestCallRawAllocs: a raw call allocates nothing in steady state, counting
// the server's side too over TCP (both run in this process) and the
// client's alone over stdio.
func TestCallRawAllocs(t *testing.T) {
	checkGoroutines(t)
	s := startTCP(t)
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := func(name string, c *client.Client) {
		t.Helper()
		for _, ctx := range []context.Context{context.Background(), cancellable} {
			dst := make([]byte, 0, 64)
			params := []byte(`[42,23]`)
			var err error
			call := func() { dst, err = c.CallRaw(ctx, dst[:0], "subtract", params) }
			for range 100 {
				call()
			}
			if n := testing.AllocsPerRun(1000, call); n != 0 {
				t.Errorf("%s: CallRaw allocates %v times per call, want 0", name, n)
			}
			if err != nil || string(dst) != "19" {
				t.Errorf("%s: CallRaw = %s, %v", name, dst, err)
			}
		}
	}
	for _, kind := range []frame.Kind{frame.NDJSON, frame.Header, frame.Len32} {
		f("tcp-"+kind.String(), dialTCP(t, s.addr, &client.Options{Framing: kind}))
	}
	c, _ := startStdio(t, frame.Header, nil)
	f("stdio-header", c)
}

// TestCallRawAllocsHTTP: over HTTP too, also when answers of different
// sizes alternate after many small ones (fasthttp's body pool calibrates
// every 42,000 uses and then drops buffers larger than most: the client
// keeps its own response buffers).
func TestCallRawAllocsHTTP(t *testing.T) {
	checkGoroutines(t)
	s := startHTTP(t)
	c, err := client.DialHTTP(s.url, testOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	closeOnCleanup(t, c)
	ctx := context.Background()
	small := []byte(`[42,23]`)
	big := []byte(`[` + strings.Repeat(`"0123456789abcdef",`, 64) + `0]`) // ~1.2 KB echoed
	dst := make([]byte, 0, 2048)
	for range 43_000 { // past one calibration of fasthttp's pools, all small
		if dst, err = c.CallRaw(ctx, dst[:0], "subtract", small); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	call := func() {
		if i++; i%2 == 0 {
			dst, err = c.CallRaw(ctx, dst[:0], "subtract", small)
		} else {
			dst, err = c.CallRaw(ctx, dst[:0], "echo", big)
		}
	}
	for range 100 {
		call()
	}
	if n := testing.AllocsPerRun(1000, call); n != 0 {
		t.Errorf("CallRaw over HTTP allocates %v times per call (client and server), want 0", n)
	}
	if err != nil {
		t.Error(err)
	}
	args, r := &subArgs{42, 23}, 0
	typed := func() { err = c.Call(ctx, "subtract", args, &r) }
	if n := testing.AllocsPerRun(1000, typed); n != 0 || err != nil || r != 19 {
		t.Errorf("Call over HTTP allocates %v times per call (client and server), want 0 (%d, %v)", n, r, err)
	}
}

// TestCallAllocs: Call with params passed by pointer allocates only what
// the caller's result needs: nothing for a number, the string for a struct
// of one string (echo sends the params back). Over TCP the count includes
// the server's side (both run in this process: the demo methods are raw
// and allocate nothing), over stdio it is the client's alone.
func TestCallAllocs(t *testing.T) {
	checkGoroutines(t)
	s := startTCP(t)
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := func(name string, c *client.Client) {
		t.Helper()
		for _, ctx := range []context.Context{context.Background(), cancellable} {
			args, in := &subArgs{42, 23}, &text{"héllo"}
			var n int
			var out text
			var err error
			sub := func() { err = c.Call(ctx, "subtract", args, &n) }
			echo := func() { err = c.Call(ctx, "echo", in, &out) }
			for range 100 {
				sub()
				echo()
			}
			if a := testing.AllocsPerRun(1000, sub); a != 0 {
				t.Errorf("%s: Call subtract allocates %v times per call, want 0", name, a)
			}
			if err != nil || n != 19 {
				t.Errorf("%s: Call subtract = %d, %v", name, n, err)
			}
			if a := testing.AllocsPerRun(1000, echo); a != 1 {
				t.Errorf("%s: Call echo {s} allocates %v times per call, want 1 (the string)", name, a)
			}
			if err != nil || out != *in {
				t.Errorf("%s: Call echo = %+v, %v", name, out, err)
			}
		}
	}
	for _, kind := range []frame.Kind{frame.NDJSON, frame.Header, frame.Len32} {
		f("tcp-"+kind.String(), dialTCP(t, s.addr, &client.Options{Framing: kind}))
	}
	c, _ := startStdio(t, frame.Header, nil)
	f("stdio-header", c)
}

// TestNotifyAllocs: Notify with params passed by pointer allocates nothing
// (client side, stdio).
func TestNotifyAllocs(t *testing.T) {
	checkGoroutines(t)
	c, _ := startStdio(t, frame.Header, nil)
	ctx := context.Background()
	args := &[2]int{1, 2}
	var err error
	notify := func() { err = c.Notify(ctx, "notify_sum", args) }
	for range 100 {
		notify()
	}
	if a := testing.AllocsPerRun(1000, notify); a != 0 {
		t.Errorf("Notify allocates %v times per call, want 0", a)
	}
	if err != nil {
		t.Error(err)
	}
}

// TestPoolAllocs: a call through a Pool, and through a client with
// headers, a token, reconnect and a retry policy set, allocates nothing
// on the happy path (no failure, no hedge), counting the servers' side
// (in this process) too.
func TestPoolAllocs(t *testing.T) {
	checkGoroutines(t)
	ctx := context.Background()
	retry := &client.RetryPolicy{Idempotent: []string{"subtract"}}
	opts := &client.Options{Header: []string{"X-Api-Key: k"}, Reconnect: &client.Reconnect{}, Retry: retry}
	var cs []*client.Client
	for range 3 {
		cs = append(cs, dialTCP(t, startTCP(t).addr, opts))
	}
	p, err := client.NewPool(cs[:3], &client.PoolOptions{Retry: retry, HedgeAfter: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 0, 64)
	params := []byte(`[42,23]`)
	f := func(name string, call func() ([]byte, error)) {
		t.Helper()
		var err error
		run := func() { dst, err = call() }
		for range 100 {
			run()
		}
		if n := testing.AllocsPerRun(1000, run); n != 0 {
			t.Errorf("%s: %v allocs per call, want 0", name, n)
		}
		if err != nil || string(dst) != "19" {
			t.Errorf("%s: %s %v", name, dst, err)
		}
	}
	f("client with options", func() ([]byte, error) { return cs[0].CallRaw(ctx, dst[:0], "subtract", params) })
	jwt, _ := client.JWT(make([]byte, 32))
	h, err := client.DialHTTP(startHTTP(t).url, testOptions(&client.Options{Header: opts.Header, Token: jwt, Retry: retry}))
	if err != nil {
		t.Fatal(err)
	}
	closeOnCleanup(t, h)
	f("HTTP with a header and a JWT", func() ([]byte, error) { return h.CallRaw(ctx, dst[:0], "subtract", params) })
	f("pool, hedging on", func() ([]byte, error) { return p.CallRaw(ctx, dst[:0], "subtract", params) })
	f("pool, not idempotent", func() ([]byte, error) { return p.CallRaw(ctx, dst[:0], "sum", []byte(`[12,7]`)) })
	args, r := &subArgs{42, 23}, 0
	if n := testing.AllocsPerRun(1000, func() { err = p.Call(ctx, "subtract", args, &r) }); n != 0 || err != nil || r != 19 {
		t.Errorf("pool Call: %v allocs per call, want 0 (%d, %v)", n, r, err)
	}
}

// TestPoolBatchAllocs: a batch through a Pool (idempotent and hedged, or
// sent once) allocates no more than the same batch through one client:
// the batch, its calls and their results (no zero: a batch allocates by
// design), counting the servers' side too.
func TestPoolBatchAllocs(t *testing.T) {
	checkGoroutines(t)
	ctx := context.Background()
	retry := &client.RetryPolicy{Idempotent: []string{"subtract"}}
	var cs []*client.Client
	for range 3 {
		cs = append(cs, dialTCP(t, startTCP(t).addr, &client.Options{Reconnect: &client.Reconnect{}}))
	}
	single := dialTCP(t, startTCP(t).addr, nil)
	p, err := client.NewPool(cs, &client.PoolOptions{Retry: retry, HedgeAfter: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var args, nums any = &subArgs{42, 23}, &[]int{42, 23}
	count := func(name string, newBatch func() *client.Batch, second string) float64 {
		t.Helper()
		run := func() {
			b := newBatch()
			x := b.Call("subtract", args, nil)
			y := b.Call(second, nums, nil)
			if err := b.Send(ctx); err != nil || x.Err() != nil || y.Err() != nil {
				t.Fatalf("%s: %v %v %v", name, err, x.Err(), y.Err())
			}
		}
		for range 100 {
			run()
		}
		return testing.AllocsPerRun(1000, run)
	}
	base := count("client", single.NewBatch, "subtract")
	hedged := count("pool, idempotent, hedging on", p.NewBatch, "subtract")
	once := count("pool, not idempotent", p.NewBatch, "sum")
	t.Logf("allocs per batch of two calls: client %v, pool hedged %v, pool sent once %v", base, hedged, once)
	if hedged > base || once > base {
		t.Errorf("a pool's batch allocates %v (hedged) and %v (sent once) times, a client's %v: want no more", hedged, once, base)
	}
}
