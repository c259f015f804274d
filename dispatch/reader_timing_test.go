package dispatch_test

import (
	"context"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/engineconn"
)

// BenchmarkReader: a call answered on a connection's reading goroutine
// (Conn.Try, as a transport hands it over), with no network: "add"
// registered Inline against the default way (plain Register, learned
// quick first, so every run is timed), each handed over with Try (after a
// wait: two clock reads per timed run) and TryBuffered (in a burst: one).
func BenchmarkReader(b *testing.B) {
	add := dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		return append(dst, '3'), nil
	})
	msg := []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":7}`)
	for _, reg := range []string{"inline", "default"} {
		for _, how := range []string{"Try", "TryBuffered"} {
			b.Run("registered="+reg+"/"+how, func(b *testing.B) {
				e := newDemo(b, nil, dispatch.Method{Name: "add", Handler: add, Inline: reg == "inline"})
				conn := newConn(e, nil, false)
				defer conn.Close()
				try := conn.Try
				if how == "TryBuffered" {
					try = conn.TryBuffered
				}
				dst := make([]byte, 0, 512)
				call := func() bool { // reports whether add ran on the reader
					var r engineconn.Routed
					if dst, r = try(dst[:0], msg); r == nil {
						return true
					}
					dst = conn.Run(dst[:0], r)
					return false
				}
				for i := 0; !call(); i++ { // until add runs on the reader
					if i == 100000 {
						b.Fatal("add never learned")
					}
				}
				for range 64 { // to its best score: a GC pause in one run unlearns nothing
					call()
				}
				b.SetBytes(int64(len(msg)))
				b.ReportAllocs()
				for b.Loop() {
					call()
				}
			})
		}
	}
}
