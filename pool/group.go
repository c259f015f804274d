package pool

import (
	"sync"
	"sync/atomic"
)

// Group waits for a set of tasks, such as the members of a batch running on
// Workers: Add before starting them, Done as each finishes, Wait for all.
// It is sync.WaitGroup plus a pending count that Reset checks, so that a
// pooled Group is never handed on while tasks still hold it.
//
// The zero value is ready to use and a Group is reusable once Wait has
// returned. Pool it with GetGroup/PutGroup, or embed it in the owner's own
// pooled struct and call Reset when that struct is reset. A Group must not
// be copied after first use.
type Group struct {
	noCopy  noCopy
	wg      sync.WaitGroup
	pending atomic.Int64
}

// Add adds n tasks to wait for.
func (g *Group) Add(n int) {
	g.pending.Add(int64(n))
	g.wg.Add(n)
}

// Done marks one task as finished.
func (g *Group) Done() {
	g.pending.Add(-1)
	g.wg.Done()
}

// Wait blocks until every task added has called Done.
func (g *Group) Wait() { g.wg.Wait() }

// Pending returns the number of tasks added and not yet done.
func (g *Group) Pending() int { return int(g.pending.Load()) }

// Reset readies g for its next owner. It panics when tasks are still
// pending: handing such a Group on would let a late Done corrupt the next
// owner's count.
func (g *Group) Reset() {
	if g.pending.Load() != 0 {
		panic("pool: Reset of a Group with pending tasks")
	}
}

var groups = sync.Pool{New: func() any { return new(Group) }}

// GetGroup returns an idle Group from a process-wide pool.
func GetGroup() *Group { return groups.Get().(*Group) }

// PutGroup resets g and returns it to the pool; g must not be used after.
// It panics when tasks are still pending (see Reset).
func PutGroup(g *Group) {
	g.Reset()
	groups.Put(g)
}
