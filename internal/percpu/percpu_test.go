package percpu

import (
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// TestExact adds from many goroutines while others read: nothing is lost,
// and every reader sees each counter only grow.
func TestExact(t *testing.T) {
	c := New(3)
	const workers, adds = 8, 20000
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			var last [3]uint64
			for {
				for i := range last {
					v := c.Load(i)
					if v < last[i] {
						t.Errorf("counter %d went from %d to %d", i, last[i], v)
						return
					}
					last[i] = v
				}
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for k := range adds {
				c.Add(0, 1)
				c.Add3(1, uint64(w), 2, 2, 0, 1)
				if k%64 == 0 {
					runtime.Gosched() // move between Ps
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	want := [3]uint64{2 * workers * adds, adds * (workers * (workers - 1) / 2), 2 * workers * adds}
	for i, w := range want {
		if got := c.Load(i); got != w {
			t.Errorf("counter %d = %d, want %d", i, got, w)
		}
	}
}

// TestSpill raises GOMAXPROCS over the shards made: the Ps beyond them add
// to the spill shard, and nothing is lost.
func TestSpill(t *testing.T) {
	old := runtime.GOMAXPROCS(1)
	c := New(2)
	runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	if c.Shards() != 1 {
		t.Fatalf("Shards = %d, want 1", c.Shards())
	}
	var total uint64
	deadline := time.Now().Add(5 * time.Second)
	for c.spill[1].Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no add reached the spill shard with 4 Ps and 1 shard")
		}
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 1000 {
					c.Add3(0, 1, 1, 1, 0, 0)
				}
			})
		}
		wg.Wait()
		total += 8 * 1000
	}
	for i := range 2 {
		if got := c.Load(i); got != total {
			t.Errorf("counter %d = %d, want %d", i, got, total)
		}
	}
}

// TestLayout: each shard starts on its own line, and the counters of one
// shard are together.
func TestLayout(t *testing.T) {
	for _, n := range []int{1, 15, 16, 17, 40} {
		c := New(n)
		if c.Len() != n || c.stride%(line/8) != 0 || c.stride < n {
			t.Fatalf("n %d: stride %d", n, c.stride)
		}
		for p := range c.ps {
			w := &c.shards[c.base+p*c.stride]
			if uintptr(unsafe.Pointer(w))%line != 0 {
				t.Errorf("n %d: shard %d at %p, not on a %d-byte line", n, p, w, line)
			}
			_ = c.shards[c.base+p*c.stride+n-1] // in range
		}
	}
}

// TestAddAllocs: adding allocates nothing.
func TestAddAllocs(t *testing.T) {
	c := New(4)
	if n := testing.AllocsPerRun(1000, func() { c.Add(3, 1); c.Add3(0, 1, 2, 5, 1, 7) }); n != 0 {
		t.Errorf("Add, Add3: %v allocs, want 0", n)
	}
}

func BenchmarkAdd(b *testing.B) {
	c := New(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Add(1, 1)
		}
	})
}

func BenchmarkAddSerial(b *testing.B) {
	c := New(2)
	for b.Loop() {
		c.Add(0, 1)
		c.Add(1, 1)
	}
}

// TestOutOfRange: a counter out of range panics before the goroutine is
// pinned (a panic while pinned would be fatal), and the goroutine goes on.
func TestOutOfRange(t *testing.T) {
	c := New(2)
	for _, f := range []func(){func() { c.Add(2, 1) }, func() { c.Add3(0, 1, 1, 1, 5, 1) }, func() { c.Add(-1, 1) }} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
	c.Add(1, 1) // still usable, not left pinned
	if c.Load(1) != 1 {
		t.Errorf("Load(1) = %d", c.Load(1))
	}
}
