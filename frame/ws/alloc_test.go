//go:build !race

package ws

import (
	"strings"
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

// TestDeflateAllocs: compressing a message (pooled writers without
// context takeover, the connection's own with it) and reading it back
// inflated allocate nothing once the buffers and pools are warm.
func TestDeflateAllocs(t *testing.T) {
	msg := []byte(strings.Repeat(`{"address":"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed","topics":["0x00"]},`, 30))
	f := func(name string, d Deflate) {
		t.Helper()
		var c Compressor
		defer c.Release()
		c.Reset(d, Server, 1024, false)
		var rd Reader
		var src replayReader
		out := make([]byte, 0, 8192)
		run := func() {
			out = c.AppendMessage(out[:0], OpText, msg, Mask{})
			if out[0]&rsv1 == 0 {
				t.Fatal("not compressed")
			}
			src.b = out
			op, p, err := rd.Next()
			if op != OpText || len(p) != len(msg) || err != nil {
				t.Fatal(op, len(p), err)
			}
		}
		rd.Reset(&src, Client, 0)
		rd.SetDeflate(d)
		for range 10 { // warm the pools and the window
			run()
		}
		if allocs := testing.AllocsPerRun(100, run); allocs != 0 {
			t.Errorf("%s: %v allocations per message", name, allocs)
		}
	}
	f("no context takeover", Deflate{ServerNoContextTakeover: true})
	f("context takeover", Deflate{})
	f("window 10", Deflate{ServerNoContextTakeover: true, ServerMaxWindowBits: 10})
}
