package pool_test

import (
	"sync/atomic"
	"testing"

	"github.com/jetrpc/jetrpc/pool"
)

func TestGroup(t *testing.T) {
	var g pool.Group // zero value
	for round := range 3 {
		var n atomic.Int64
		g.Add(50)
		for range 50 {
			go func() {
				n.Add(1)
				g.Done()
			}()
		}
		g.Wait()
		if n.Load() != 50 || g.Pending() != 0 {
			t.Fatalf("round %d: ran %d, pending %d", round, n.Load(), g.Pending())
		}
		g.Reset()
	}
}

func TestGroupResetPending(t *testing.T) {
	g := pool.GetGroup()
	g.Add(1)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("PutGroup of a pending Group did not panic")
			}
		}()
		pool.PutGroup(g)
	}()
	g.Done()
	g.Wait()
	pool.PutGroup(g)
}
