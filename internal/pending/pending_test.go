package pending_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/jetrpc/jetrpc/internal/pending"
)

var errLost = errors.New("connection lost")

func TestResolveAndFail(t *testing.T) {
	var tb pending.Table
	var a, b pending.Call
	a.Dst = []byte("x:")
	if err := tb.Register(1, &a); err != nil {
		t.Fatal(err)
	}
	if err := tb.Register(2, &b); err != nil {
		t.Fatal(err)
	}
	if !tb.AnyPending([]uint64{7, 2}) || tb.AnyPending([]uint64{7, 8}) {
		t.Error("AnyPending does not see the pending call 2 only")
	}
	tb.Take(1).Resolve([]byte("42"))
	tb.Take(2).Fail(errLost)
	if tb.Take(1) != nil || tb.AnyPending([]uint64{1, 2}) {
		t.Error("a taken call is still pending")
	}
	ctx := context.Background()
	if err := tb.Wait(ctx, 1, &a); err != nil || string(a.Res) != "x:42" || a.Err != nil {
		t.Errorf("call 1: Wait %v, Res %q, Err %v", err, a.Res, a.Err)
	}
	if err := tb.Wait(ctx, 2, &b); err != nil || b.Res != nil || b.Err != errLost {
		t.Errorf("call 2: Wait %v, Res %q, Err %v", err, b.Res, b.Err)
	}
	a.Reset()
	if a.Dst != nil || a.Res != nil || a.Err != nil {
		t.Errorf("Reset left %+v", a)
	}
}

func TestWaitContext(t *testing.T) {
	var tb pending.Table
	var c pending.Call
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	// Nobody answered: the caller abandons the call.
	tb.Register(1, &c)
	if err := tb.Wait(ctx, 1, &c); err != context.Canceled {
		t.Errorf("Wait = %v, want context.Canceled", err)
	}
	if tb.Take(1) != nil {
		t.Error("an abandoned call is still pending")
	}

	// The answer was under way: it wins over ctx.
	tb.Register(2, &c)
	p := tb.Take(2)
	go p.Resolve([]byte("1"))
	if err := tb.Wait(ctx, 2, &c); err != nil || string(c.Res) != "1" {
		t.Errorf("Wait = %v, Res %q; want the answer", err, c.Res)
	}

	// The same for Settle, and Abandon reports who won.
	c.Reset()
	tb.Register(3, &c)
	tb.Settle(3, &c)
	tb.Register(4, &c)
	tb.Take(4).Fail(errLost)
	if tb.Abandon(4, &c) {
		t.Error("Abandon of a taken call reported it pending")
	}
	tb.Settle(4, &c) // consumes the signal
	if c.Err != errLost {
		t.Errorf("Err = %v after Settle, want the failure", c.Err)
	}
}

func TestClose(t *testing.T) {
	var tb pending.Table
	calls := make([]pending.Call, 3)
	for i := range calls {
		tb.Register(uint64(i+1), &calls[i])
	}
	if tb.Err() != nil {
		t.Fatalf("open table: Err = %v", tb.Err())
	}
	if !tb.Close(errLost) || tb.Close(errors.New("later")) {
		t.Error("Close did not report the first close only")
	}
	for i := range calls {
		if err := tb.Wait(context.Background(), uint64(i+1), &calls[i]); err != nil || calls[i].Err != errLost {
			t.Errorf("call %d: Wait %v, Err %v; want the first error", i+1, err, calls[i].Err)
		}
	}
	var c pending.Call
	if err := tb.Register(9, &c); err != errLost || tb.Err() != errLost {
		t.Errorf("Register after Close = %v, Err %v; want the first error", err, tb.Err())
	}
}

// TestConcurrent races answers, abandons and Close (run it with -race).
func TestConcurrent(t *testing.T) {
	var tb pending.Table
	const callers, rounds = 8, 200
	var wg sync.WaitGroup
	half := make(chan struct{})
	for g := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c pending.Call
			for r := range rounds {
				id := uint64(g*rounds + r + 1)
				if g == 0 && r == rounds/2 {
					close(half)
				}
				c.Reset()
				if tb.Register(id, &c) != nil {
					return // closed
				}
				ctx, cancel := context.WithCancel(context.Background())
				go func() {
					if p := tb.Take(id); p != nil {
						p.Resolve([]byte("ok"))
					}
				}()
				if r%2 == 0 {
					cancel()
				}
				if err := tb.Wait(ctx, id, &c); err == nil && c.Err == nil && string(c.Res) != "ok" {
					t.Errorf("call %d: Res %q", id, c.Res)
				}
				cancel()
			}
		}()
	}
	<-half // Close with calls under way
	tb.Close(errLost)
	wg.Wait()
}
