package httpz_test

import (
	"io"
	"strconv"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/internal/httpz"
	"github.com/klauspost/compress/gzip"
)

// BenchmarkLevel compresses a 64 KiB eth_getLogs-like result at the
// levels worth considering for Level: bytes/op is the compressed size.
func BenchmarkLevel(b *testing.B) {
	logs := demo.Logs(64 << 10)
	for _, level := range []int{gzip.StatelessCompression, gzip.HuffmanOnly, 1, 2, 3, 5, gzip.DefaultCompression} {
		b.Run("level="+strconv.Itoa(level), func(b *testing.B) {
			var out counter
			w, err := gzip.NewWriterLevel(&out, level)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(logs)))
			b.ReportAllocs()
			for b.Loop() {
				out = 0
				w.Reset(&out)
				_, _ = w.Write(logs)
				_ = w.Close()
			}
			b.ReportMetric(float64(out), "wire-bytes")
		})
	}
}

// BenchmarkAppend is what a response pays: Append at Level, and Inflate
// of it.
func BenchmarkAppend(b *testing.B) {
	logs := demo.Logs(64 << 10)
	for _, enc := range []httpz.Encoding{httpz.Gzip, httpz.Deflate} {
		z := httpz.Append(nil, enc, logs)
		b.Run("compress/"+enc.String(), func(b *testing.B) {
			b.SetBytes(int64(len(logs)))
			b.ReportAllocs()
			dst := make([]byte, 0, 2*len(z))
			for b.Loop() {
				dst = httpz.Append(dst[:0], enc, logs)
			}
			b.ReportMetric(float64(len(dst)), "wire-bytes")
		})
		b.Run("inflate/"+enc.String(), func(b *testing.B) {
			b.SetBytes(int64(len(logs)))
			b.ReportAllocs()
			dst := make([]byte, 0, 2*len(logs))
			for b.Loop() {
				dst, _ = httpz.Inflate(dst[:0], enc, z, 4<<20)
			}
		})
	}
}

type counter int

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }

var _ io.Writer = (*counter)(nil)
