package pool_test

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/jetrpc/jetrpc/internal/pool"
)

// square is a batch member: a pointer type, so submitting it does not
// allocate; in a server these structs come from a pool.
type square struct {
	in, out int
	g       *sync.WaitGroup
}

func (s *square) Run() {
	s.out = s.in * s.in
	s.g.Done()
}

func ExampleWorkers() {
	w := pool.NewWorkers(&pool.WorkersOptions{Max: 4})
	defer w.Stop()

	var g sync.WaitGroup
	members := make([]square, 5)
	for i := range members {
		members[i] = square{in: i + 1, g: &g}
		g.Add(1)
		if !w.Submit(&members[i]) {
			members[i].Run() // all workers busy: run it here
		}
	}
	g.Wait()
	for _, m := range members {
		fmt.Print(m.out, " ")
	}
	fmt.Println()
	// Output: 1 4 9 16 25
}

func ExampleTaskFunc() {
	w := pool.NewWorkers(nil)
	var n atomic.Int32
	for range 3 {
		w.Submit(pool.TaskFunc(func() { n.Add(1) }))
	}
	w.Stop() // waits for the tasks
	fmt.Println(n.Load())
	// Output: 3
}

func ExampleGetBuffer() {
	b := pool.GetBuffer()
	b.B = append(b.B, `{"jsonrpc":"2.0","id":1,"result":19}`...)
	fmt.Println(string(b.B))
	pool.PutBuffer(b) // b must not be used after this
	// Output: {"jsonrpc":"2.0","id":1,"result":19}
}
