//go:build !race

package pool_test

import (
	"runtime"
	"testing"

	"github.com/jetrpc/jetrpc/internal/pool"
)

func TestBuffersDoNotAllocate(t *testing.T) {
	f := func(name string, fn func()) {
		t.Helper()
		if n := testing.AllocsPerRun(1000, fn); n != 0 {
			t.Errorf("%s: %v allocs per run, want 0", name, n)
		}
	}
	f("GetBuffer/PutBuffer", func() {
		b := pool.GetBuffer()
		b.B = append(b.B, "some response bytes"...)
		pool.PutBuffer(b)
	})
	var p pool.Buffers
	f("Buffers.Get/Put", func() {
		b := p.Get()
		b.B = append(b.B, "some response bytes"...)
		p.Put(b)
	})
}

// ping is a pooled-style task: a pointer, so submitting it boxes nothing.
type ping struct{ done chan struct{} }

func (p *ping) Run() { p.done <- struct{}{} }

func TestSubmitDoesNotAllocate(t *testing.T) {
	w := pool.NewWorkers(&pool.WorkersOptions{Max: 4})
	defer w.Stop()
	task := &ping{done: make(chan struct{}, 1)}
	n := testing.AllocsPerRun(1000, func() {
		for w.Idle() == 0 && w.Running() > 0 { // steady state: a worker is idle
			runtime.Gosched()
		}
		if !w.Submit(task) {
			t.Fatal("Submit refused")
		}
		<-task.done
	})
	if n != 0 {
		t.Errorf("Submit: %v allocs per run, want 0", n)
	}
}
