//go:build !race

package pending_test

import (
	"context"
	"testing"

	"github.com/jetrpc/jetrpc/internal/pending"
)

// TestCallDoesNotAllocate: a call through the table, answered or
// abandoned, allocates nothing once the entry has its channel.
func TestCallDoesNotAllocate(t *testing.T) {
	var tb pending.Table
	var c pending.Call
	dst := make([]byte, 0, 16)
	result := []byte(`19`)
	ctx := context.Background()
	done, cancel := context.WithCancel(ctx)
	cancel()
	id := uint64(0)
	f := func(name string, call func()) {
		t.Helper()
		call()
		if n := testing.AllocsPerRun(1000, call); n != 0 {
			t.Errorf("%s: %v allocs per call, want 0", name, n)
		}
	}
	f("answered", func() {
		id++
		c.Reset()
		c.Dst = dst
		tb.Register(id, &c)
		tb.Take(id).Resolve(result)
		if tb.Wait(ctx, id, &c) != nil || string(c.Res) != "19" {
			t.Fatal("no answer")
		}
	})
	f("abandoned", func() {
		id++
		tb.Register(id, &c)
		if tb.Wait(done, id, &c) == nil {
			t.Fatal("Wait did not abandon")
		}
	})
	f("settled", func() {
		id++
		tb.Register(id, &c)
		tb.Settle(id, &c)
	})
}
