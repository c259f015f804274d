// Package simdjson measures simdjson-go (github.com/minio/simdjson-go, a Go port of
// simdjson's two stages in assembly) on the scanner's shape documents, the third column
// beside internal/scan's BenchmarkShape and BenchmarkShapeFastjson. It is a module of its
// own so that simdjson-go never enters jetrpc's go.mod:
//
//	cd internal/scan/shapes/simdjson && go test -run '^$' -bench . -count=10
//
// simdjson-go parses into a tape (it does more than validate), and needs AVX2 and CLMUL.
package simdjson

import (
	"testing"

	"github.com/jetrpc/jetrpc/internal/scan/shapes"
	"github.com/minio/simdjson-go"
)

func TestShapes(t *testing.T) {
	if !simdjson.SupportedCPU() {
		t.Skip("simdjson-go needs AVX2 and CLMUL")
	}
	for _, sh := range shapes.All {
		if _, err := simdjson.Parse([]byte(sh.Doc), nil); err != nil {
			t.Errorf("%s: %v", sh.Name, err)
		}
	}
	if _, err := simdjson.Parse([]byte(`[1,2,`), nil); err == nil {
		t.Error("simdjson-go took a truncated document")
	}
}

// BenchmarkShapeSimdjson parses each shape with simdjson-go, reusing its tape.
func BenchmarkShapeSimdjson(b *testing.B) {
	if !simdjson.SupportedCPU() {
		b.Skip("simdjson-go needs AVX2 and CLMUL")
	}
	for _, sh := range shapes.All {
		b.Run(sh.Name, func(b *testing.B) {
			in := []byte(sh.Doc)
			pj, err := simdjson.Parse(in, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if pj, err = simdjson.Parse(in, pj, simdjson.WithCopyStrings(false)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
