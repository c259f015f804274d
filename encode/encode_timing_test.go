package encode_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/encode"
)

var benchStrings = []struct{ name, s string }{
	{"method", "eth_getBalance"},
	{"ascii64", strings.Repeat("abcdefgh", 8)},
	{"ascii1k", strings.Repeat("The quick brown fox jumps over the lazy dog. ", 23)},
	{"escapes", strings.Repeat("line \"one\"\n\ttab\\", 8)},
	{"utf8", strings.Repeat("héllo wörld — 日本語 ", 8)},
}

func BenchmarkAppendString(b *testing.B) {
	for _, c := range benchStrings {
		b.Run(c.name, func(b *testing.B) {
			dst := make([]byte, 0, 4*len(c.s)+2)
			b.SetBytes(int64(len(c.s)))
			b.ReportAllocs()
			for b.Loop() {
				dst = encode.AppendString(dst[:0], c.s)
			}
		})
	}
}

// BenchmarkJSONMarshalString is the baseline for BenchmarkAppendString.
func BenchmarkJSONMarshalString(b *testing.B) {
	for _, c := range benchStrings {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(c.s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAppendResult(b *testing.B) {
	id, result := []byte(`9007199254740993`), []byte(`{"balance":"0x1bc16d674ec80000","block":"latest"}`)
	dst := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		dst = encode.AppendResult(dst[:0], id, result)
	}
	b.SetBytes(int64(len(dst)))
}

// BenchmarkJSONMarshalResult is the baseline for BenchmarkAppendResult: the
// usual encoding/json response struct with raw id and result.
func BenchmarkJSONMarshalResult(b *testing.B) {
	type response struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
	}
	r := response{"2.0", json.RawMessage(`9007199254740993`), json.RawMessage(`{"balance":"0x1bc16d674ec80000","block":"latest"}`)}
	b.ReportAllocs()
	var out []byte
	for b.Loop() {
		var err error
		if out, err = json.Marshal(&r); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(out)))
}

func BenchmarkAppendStdError(b *testing.B) {
	id := []byte(`"req-1"`)
	dst := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		dst = encode.AppendStdError(dst[:0], id, encode.CodeMethodNotFound)
	}
}

func BenchmarkAppendError(b *testing.B) {
	id := []byte(`"req-1"`)
	dst := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		dst = encode.AppendError(dst[:0], id, encode.CodeMethodNotFound, "Method not found", nil)
	}
}
