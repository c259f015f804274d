package unmarshal

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/bytedance/sonic"
)

type benchParams struct {
	Method string   `json:"method"`
	Count  int      `json:"count"`
	Ratio  float64  `json:"ratio"`
	On     bool     `json:"on"`
	Tags   []string `json:"tags"`
	Inner  inner    `json:"inner"`
}

var benchInputs = []struct {
	name string
	in   string
	new  func() any
}{
	{"twoInts", `{"minuend":42,"subtrahend":23}`, func() any { return new(twoInts) }},
	{"array2", `[42,23]`, func() any { return new([2]int) }},
	{"mixed", `{"method":"subtract","count":12345,"ratio":0.25,"on":true,"tags":["a","bb","ccc"],"inner":{"x":7,"s":"caf\u00e9"}}`,
		func() any { return new(benchParams) }},
	{"strings", `{"name":"Ada Lovelace","email":"ada.lovelace@analytical-engine.example",` +
		`"bio":"Wrote \"the first program\" for Babbage's engine;\nnotes A to G, 1843.",` +
		`"city":"London, England","note":"caf\u00e9 au lait \u2014 no sugar, thanks"}`,
		func() any { return new(profile) }},
}

// profile is bench.ProfileArgs: string fields, two of them with escapes.
type profile struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Bio   string `json:"bio"`
	City  string `json:"city"`
	Note  string `json:"note"`
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range benchInputs {
		data := []byte(c.in)
		v := c.new()
		rv := reflect.ValueOf(v)
		d, err := Compile(rv.Type().Elem())
		if err != nil {
			b.Fatal(err)
		}
		p := rv.UnsafePointer()
		b.Run(c.name+"/jetrpc", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := d.Decode(data, p); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/valid", func(b *testing.B) { // as dispatch.Typed decodes params
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := d.DecodeValid(data, p); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/sonic", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := sonic.Unmarshal(data, v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/encoding_json", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := json.Unmarshal(data, v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
