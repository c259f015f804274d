package bench_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
)

// BenchmarkBatchPolicy measures the batch policy: ten cheap calls run inline
// on the caller's goroutine (the method is registered Inline) against the
// same calls handed to pooled workers (registered without Inline), and a
// batch of ten calls that each do ~2µs of work, both ways.
func BenchmarkBatchPolicy(b *testing.B) {
	e := dispatch.New(nil)
	b.Cleanup(e.Close)
	cheap := dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
		return append(dst, '1'), nil
	})
	work := dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
		x := uint64(1)
		for i := 0; i < 2000; i++ { // about 2µs of CPU
			x = x*6364136223846793005 + 1442695040888963407
		}
		return strconv.AppendUint(dst, x>>60, 10), nil
	})
	for _, m := range []dispatch.Method{
		{Name: "cheap_inline", Handler: cheap, Inline: true},
		{Name: "cheap_workers", Handler: cheap},
		{Name: "work_inline", Handler: work, Inline: true},
		{Name: "work_workers", Handler: work},
	} {
		if err := e.RegisterMethod(m); err != nil {
			b.Fatal(err)
		}
	}
	for _, method := range []string{"cheap_inline", "cheap_workers", "work_inline", "work_workers"} {
		var s strings.Builder
		s.WriteByte('[')
		for i := 0; i < 10; i++ {
			if i > 0 {
				s.WriteByte(',')
			}
			s.WriteString(`{"jsonrpc":"2.0","method":"` + method + `","id":` + strconv.Itoa(i) + `}`)
		}
		s.WriteByte(']')
		msg := []byte(s.String())
		b.Run(method, func(b *testing.B) {
			b.ReportAllocs()
			dst := make([]byte, 0, 4096)
			for b.Loop() {
				dst = e.Process(dst[:0], msg)
			}
		})
	}
}
