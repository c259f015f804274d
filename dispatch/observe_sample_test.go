package dispatch_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
)

// countingTimer is a TimingObserver of one in 8 that counts how its
// calls end: timed for themselves, sampled, or untimed.
type countingTimer struct{ self, sampled, untimed atomic.Int64 }

func (c *countingTimer) Method(string) dispatch.MethodObserver { return c }
func (c *countingTimer) Message(in, out, batch int)            {}
func (c *countingTimer) Event(dispatch.Event)                  {}
func (c *countingTimer) Begin(context.Context)                 {}
func (c *countingTimer) TimeEvery() int                        { return 8 }
func (c *countingTimer) End(_ context.Context, e dispatch.CallEnd) {
	switch {
	case e.Sampled && e.Untimed:
		panic("a call both sampled and untimed")
	case e.Sampled:
		c.sampled.Add(1)
	case e.Untimed:
		c.untimed.Add(1)
	default:
		c.self.Add(1)
	}
}

// TestTimingObserverWarmUp: a TimingObserver of one in n has the first
// 1024 calls of a method timed, each standing for itself, then one in n at
// random (Sampled) and the others untimed, on the methods the engine
// times for their cost too.
func TestTimingObserverWarmUp(t *testing.T) {
	for _, inline := range []bool{true, false} {
		obs := &countingTimer{}
		e := dispatch.New(&dispatch.Options{Observer: obs})
		if err := e.RegisterMethod(dispatch.Method{Name: "ping", Inline: inline,
			Handler: dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
				return append(dst, "true"...), nil
			})}); err != nil {
			t.Fatal(err)
		}
		msg := []byte(`{"jsonrpc":"2.0","method":"ping","id":1}`)
		for range 1000 {
			e.Process(nil, msg)
		}
		if s, sa, u := obs.self.Load(), obs.sampled.Load(), obs.untimed.Load(); s != 1000 || sa != 0 || u != 0 {
			t.Fatalf("inline %v, first 1000 calls: %d timed, %d sampled, %d untimed; want all timed", inline, s, sa, u)
		}
		const more = 80000
		for range 24 + more {
			e.Process(nil, msg)
		}
		s, sa, u := obs.self.Load(), obs.sampled.Load(), obs.untimed.Load()
		if s != 1024 || sa+u != more || sa < more/8*8/10 || sa > more/8*12/10 {
			t.Fatalf("inline %v, %d calls after the first 1024: %d timed, %d sampled, %d untimed; want about one in 8 sampled",
				inline, more, s-1024, sa, u)
		}
		e.Close()
	}
}
