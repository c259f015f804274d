package decode

import (
	"testing"

	"github.com/valyala/fastjson"
)

func BenchmarkScan(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			in := []byte(bc.in)
			var p Parser
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := p.Parse(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFastjsonValidate is the baseline: fastjson's validator on the same inputs. It checks
// syntax only (no UTF-8, no depth limit, no classification).
func BenchmarkFastjsonValidate(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			in := []byte(bc.in)
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if err := fastjson.ValidateBytes(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkValid(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			in := []byte(bc.in)
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if !Valid(in, 0) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
