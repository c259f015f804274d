package pool_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/internal/pool"
)

func TestBufferZeroValue(t *testing.T) {
	var b pool.Buffer
	b.B = append(b.B, "hello"...)
	c := cap(b.B)
	b.Reset()
	if len(b.B) != 0 || cap(b.B) != c {
		t.Fatalf("Reset: len %d cap %d, want 0 and %d", len(b.B), cap(b.B), c)
	}
}

func TestBuffersCap(t *testing.T) {
	f := func(size int, wantKept bool) {
		t.Helper()
		var p pool.Buffers
		b := p.Get()
		if len(b.B) != 0 {
			t.Fatalf("Get: len %d, want 0", len(b.B))
		}
		b.B = append(make([]byte, 0, size), "data"...)
		p.Put(b)
		// sync.Pool may drop anything at any time, so look for b a few times;
		// a dropped buffer must never come back.
		kept := false
		for range 10 {
			g := p.Get()
			if g == b {
				kept = true
				if len(g.B) != 0 || cap(g.B) != size {
					t.Fatalf("pooled buffer: len %d cap %d, want 0 and %d", len(g.B), cap(g.B), size)
				}
			}
			if cap(g.B) > pool.MaxPooledBuffer {
				t.Fatalf("Get returned a buffer of cap %d", cap(g.B))
			}
		}
		if wantKept && !kept && !raceEnabled {
			t.Errorf("size %d: buffer not reused", size)
		}
		if !wantKept && kept {
			t.Errorf("size %d: buffer over MaxPooledBuffer was pooled", size)
		}
	}
	f(64, true)
	f(4096, true)
	f(pool.MaxPooledBuffer, true)
	f(pool.MaxPooledBuffer+1, false)
	f(4<<20, false)
}

func TestGetPutBuffer(t *testing.T) {
	b := pool.GetBuffer()
	b.B = append(b.B, "x"...)
	pool.PutBuffer(b)
	pool.PutBuffer(nil)
	if b := pool.GetBuffer(); len(b.B) != 0 {
		t.Fatalf("GetBuffer: len %d", len(b.B))
	}
	big := &pool.Buffer{B: make([]byte, 0, 2*pool.MaxPooledBuffer)}
	pool.PutBuffer(big)
	for range 10 {
		if pool.GetBuffer() == big {
			t.Fatal("oversized buffer was pooled")
		}
	}
}
