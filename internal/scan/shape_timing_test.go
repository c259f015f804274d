package scan

import (
	"testing"

	"github.com/jetrpc/jetrpc/internal/scan/shapes"
	"github.com/valyala/fastjson"
)

func TestShapesValid(t *testing.T) {
	for _, sh := range shapes.All {
		if !Valid([]byte(sh.Doc), 0) {
			t.Errorf("%s: not valid", sh.Name)
		}
		if err := fastjson.Validate(sh.Doc); err != nil {
			t.Errorf("%s: fastjson: %v", sh.Name, err)
		}
	}
}

// BenchmarkShape validates each shape with this package's Scanner.
func BenchmarkShape(b *testing.B) {
	for _, sh := range shapes.All {
		b.Run(sh.Name, func(b *testing.B) {
			in := []byte(sh.Doc)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if !Valid(in, 0) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkShapeFastjson is the baseline: fastjson's validator on the same documents.
func BenchmarkShapeFastjson(b *testing.B) {
	for _, sh := range shapes.All {
		b.Run(sh.Name, func(b *testing.B) {
			in := []byte(sh.Doc)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if fastjson.ValidateBytes(in) != nil {
					b.Fatal("invalid")
				}
			}
		})
	}
}
