package bench_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
)

func newEngine(tb testing.TB) *dispatch.Engine {
	tb.Helper()
	e := dispatch.New(nil)
	if err := demo.Register(e); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	return e
}

func BenchmarkEngine(b *testing.B) {
	e := newEngine(b)
	for _, c := range bench.Cases() {
		b.Run(c.Name, func(b *testing.B) {
			dst := make([]byte, 0, 4096)
			b.SetBytes(int64(len(c.Msg)))
			b.ReportAllocs()
			for b.Loop() {
				dst = e.Process(dst[:0], c.Msg)
			}
		})
	}
}

func BenchmarkStdlib(b *testing.B) {
	s := bench.NewStdlib()
	for _, c := range bench.Cases() {
		b.Run(c.Name, func(b *testing.B) {
			b.SetBytes(int64(len(c.Msg)))
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Process(c.Msg)
			}
		})
	}
}
