//go:build !race

package decode

import (
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestBatchMemory: a batch's table grows with its members, about 52 bytes each, never
// copied, and what the Parser keeps afterwards stays bounded.
func TestBatchMemory(t *testing.T) {
	for _, n := range []int{10, 1000, 10000} {
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"jsonrpc":"2.0","method":"m","id":` + strconv.Itoa(i) + `}`)
		}
		b.WriteByte(']')
		data := []byte(b.String())
		const runs = 10
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			p := new(Parser)
			p.MaxBatch = n
			if m, err := p.Parse(data); err != nil || p.BatchLen() != n || m.Kind != Batch {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		bytes := int64(after.TotalAlloc-before.TotalAlloc) / runs
		table := int64(n+chunkMembers-1) / chunkMembers * chunkMembers * int64(reflect.TypeFor[bmember]().Size())
		parser := int64(reflect.TypeFor[Parser]().Size())
		// A chunk's 6656 bytes take a 6784-byte size class; 4096: the chunk pointers.
		if limit := table*6784/6656 + parser + 4096; bytes > limit {
			t.Errorf("%d members (%d bytes of text): %d bytes allocated, want at most %d", n, len(data), bytes, limit)
		}
		var p Parser
		p.MaxBatch = n
		p.Parse(data)
		p.Reset()
		if len(p.members.chunks) > maxKeptChunks || cap(p.batch) > maxKeptMembers {
			t.Errorf("%d members: %d chunks kept after Reset", n, len(p.members.chunks))
		}
	}
	if s := reflect.TypeFor[bmember]().Size(); s != 52 {
		t.Errorf("a member takes %d bytes, want 52", s)
	}
}
