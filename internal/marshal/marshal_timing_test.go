package marshal

import (
	"encoding/json"
	"testing"

	"github.com/bytedance/sonic"
)

type benchResult struct {
	ID     int        `json:"id"`
	Name   string     `json:"name"`
	Score  float64    `json:"score"`
	Active bool       `json:"active"`
	Tags   []string   `json:"tags"`
	Pos    [2]float64 `json:"pos"`
}

// BenchmarkAppend encodes the same struct with this package (into a reused
// dst), sonic.Marshal (what dispatch.Typed uses today) and encoding/json.
func BenchmarkAppend(b *testing.B) {
	v := benchResult{42, "result <one>", 3.14159, true, []string{"a", "bb", "ccc"}, [2]float64{1.5, -2.25}}
	e, err := CompileFor[benchResult]()
	if err != nil {
		b.Fatal(err)
	}
	out, _ := AppendValue(e, nil, &v)
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(out)))
		dst := make([]byte, 0, 256)
		for b.Loop() {
			dst, _ = AppendValue(e, dst[:0], &v)
		}
	})
	b.Run("sonic", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(out)))
		for b.Loop() {
			_, _ = sonic.Marshal(v)
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(out)))
		for b.Loop() {
			_, _ = json.Marshal(v)
		}
	})
}
