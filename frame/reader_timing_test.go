package frame

import (
	"bufio"
	"strconv"
	"testing"
)

// benchStream is 1000 small requests framed as kind.
func benchStream(kind Kind) []byte {
	var s []byte
	for i := range 1000 {
		msg := `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":` + strconv.Itoa(i) + `}`
		s = AppendFrame(s, kind, []byte(msg))
	}
	return s
}

// BenchmarkReader measures Next per frame on a stream of small messages.
// "bufio.Scanner" is the baseline: stdlib line splitting of the same NDJSON.
func BenchmarkReader(b *testing.B) {
	for _, kind := range []Kind{NDJSON, Header, Len32} {
		b.Run(kind.String(), func(b *testing.B) {
			data := benchStream(kind)
			fr := NewReader(&repeatReader{data: data}, kind, 0)
			b.SetBytes(int64(len(data) / 1000))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := fr.Next(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("bufio.Scanner", func(b *testing.B) {
		data := benchStream(NDJSON)
		sc := bufio.NewScanner(&repeatReader{data: data})
		b.SetBytes(int64(len(data) / 1000))
		b.ReportAllocs()
		for b.Loop() {
			if !sc.Scan() {
				b.Fatal(sc.Err())
			}
		}
	})
}

func BenchmarkAppendFrame(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","result":19,"id":1}`)
	dst := make([]byte, 0, 256)
	for _, kind := range []Kind{NDJSON, Header, Len32} {
		b.Run(kind.String(), func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				dst = AppendFrame(dst[:0], kind, msg)
			}
		})
		b.Run(kind.String()+"/begin-end", func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				var mark int
				dst, mark = BeginFrame(dst[:0], kind)
				dst = append(dst, msg...)
				dst = EndFrame(dst, kind, mark)
			}
		})
	}
}
