//go:build !race

package ws

import (
	"testing"
)

// TestAllocs: writing a frame and reading messages, masked or not, whole
// or in fragments, allocate nothing once the buffers have grown.
func TestAllocs(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	f := func(name string, role Role, m Mask) {
		t.Helper()
		var rd Reader
		var src replayReader
		out := make([]byte, 0, 4096)
		rd.Reset(&src, role, 0)
		allocs := testing.AllocsPerRun(100, func() {
			out = AppendFrame(out[:0], OpText, msg, m)
			out = AppendFrame(out, OpPing, msg[:10], m)
			out = AppendHeader(out, OpText, false, 5, m)
			start := len(out)
			out = append(out, "hello"...)
			m.Apply(out[start:])
			out = AppendFrame(out, OpContinuation, msg, m)
			out = AppendClose(out, CloseGoingAway, "bye", m)
			src.b = out
			for range 3 {
				if _, _, err := rd.Next(); err != nil {
					t.Fatal(err)
				}
			}
			if op, _, err := rd.Next(); op != OpClose || err != nil {
				t.Fatal(op, err)
			}
			rd.Reset(&src, role, 0)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per run", name, allocs)
		}
	}
	f("server frames", Client, Mask{})
	f("client frames", Server, MaskWith(0x12345678))
}
