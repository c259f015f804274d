package marshal

import (
	"strings"
	"testing"
)

// BenchmarkAppendValid compacts valid JSON: compact, about 1 KiB of
// objects with short strings and escapes (the params of the engine
// benchmarks' echo1k); pretty, the same indented.
func BenchmarkAppendValid(b *testing.B) {
	var s strings.Builder
	s.WriteString(`{"items":[`)
	for i := range 12 {
		if i > 0 {
			s.WriteByte(',')
		}
		s.WriteString(`{"id":` + string(rune('0'+i%10)) + `,"name":"item \u00e9 name","price":12.5,"tags":["a","b"],"ok":true}`)
	}
	s.WriteString(`],"note":"caf\u00e9 \"quoted\" text"}`)
	compactIn := []byte(s.String())
	pretty := strings.NewReplacer(`{`, "{\n  ", `,"`, ",\n  \"", `":`, `": `).Replace(s.String())
	for _, c := range []struct {
		name string
		in   []byte
	}{{"compact", compactIn}, {"pretty", []byte(pretty)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			dst := make([]byte, 0, 2*len(c.in))
			for b.Loop() {
				dst = AppendValid(dst[:0], c.in)
			}
		})
	}
}
