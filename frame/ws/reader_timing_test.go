package ws

import (
	"bytes"
	"testing"
)

// BenchmarkReader reads 64 pipelined calls from one buffer, as a server
// reads a client's masked frames and as a client reads a server's.
func BenchmarkReader(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	f := func(name string, role Role, m Mask) {
		var stream []byte
		for range 64 {
			stream = AppendFrame(stream, OpText, msg, m)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(stream)))
			var rd Reader
			src := bytes.NewReader(nil)
			for b.Loop() {
				src.Reset(stream)
				rd.Reset(src, role, 0)
				for range 64 {
					if _, _, err := rd.Next(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
	f("server", Server, MaskWith(0x12345678))
	f("client", Client, Mask{})
}

// BenchmarkAppendFrame frames one call, masked (a client's) and not.
func BenchmarkAppendFrame(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	for _, c := range []struct {
		name string
		m    Mask
	}{{"masked", MaskWith(0x12345678)}, {"unmasked", Mask{}}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(msg)))
			out := make([]byte, 0, 256)
			for b.Loop() {
				out = AppendFrame(out[:0], OpText, msg, c.m)
			}
		})
	}
}
