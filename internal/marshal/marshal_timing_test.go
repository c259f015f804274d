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

// BenchmarkRawMessage encodes a result struct holding a 1 KiB compact
// json.RawMessage (a typed handler's usual result) with this package,
// sonic.Marshal and encoding/json.
func BenchmarkRawMessage(b *testing.B) {
	var raw []byte
	raw = append(raw, '[')
	for i := range 24 {
		if i > 0 {
			raw = append(raw, ',')
		}
		raw = append(raw, `{"id":12345,"name":"some name here","ok":true}`...)
	}
	raw = append(raw, ']')
	v := rawBench{7, json.RawMessage(raw)}
	e, err := CompileFor[rawBench]()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(raw)))
		dst := make([]byte, 0, 2048)
		for b.Loop() {
			dst, _ = AppendValue(e, dst[:0], &v)
		}
	})
	b.Run("sonic", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			_, _ = sonic.Marshal(&v)
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			_, _ = json.Marshal(&v)
		}
	})
}

type rawBench struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
}
