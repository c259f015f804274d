package ws

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jetrpc/jetrpc/decode"
)

// utf8Inputs are 1 KiB text messages, valid JSON-RPC: ASCII JSON (a batch
// of calls) and a call whose params are text in Greek, CJK, emoji and
// accented Latin, about half of it bytes of multi-byte characters.
var utf8Inputs = []struct{ name, in string }{
	{"ascii", kib("[", `{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":3},`,
		`{"jsonrpc":"2.0","method":"pad","params":["`, `"],"id":0}]`)},
	{"mixed", kib(`{"jsonrpc":"2.0","method":"note","params":["`, "κόσμε 日本語のテキスト résumé naïve 🎉𝄞 plain words, ",
		"", `"],"id":1}`)},
}

// kib repeats unit between head and tail, then pads with 'x' before the
// tail (after pad) to exactly 1 KiB.
func kib(head, unit, pad, tail string) string {
	var b strings.Builder
	b.WriteString(head)
	for b.Len()+len(unit)+len(pad)+len(tail) <= 1024 {
		b.WriteString(unit)
	}
	b.WriteString(pad)
	b.WriteString(strings.Repeat("x", 1024-b.Len()-len(tail)))
	b.WriteString(tail)
	return b.String()
}

// BenchmarkUTF8 is the check of a text message (bytes/s is per KiB of
// text), alone and with the Reader's ASCII look before it; the baselines
// beside it: the standard library's
// utf8.Valid, and the project's JSON scanner (decode), which checks UTF-8
// as a part of its work, on the same bytes.
func BenchmarkUTF8(b *testing.B) {
	run := func(name string, check func([]byte) bool) {
		for _, c := range utf8Inputs {
			in := []byte(c.in)
			b.Run(name+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(in)))
				for b.Loop() {
					if !check(in) {
						b.Fatal("invalid")
					}
				}
			})
		}
	}
	run("check", validUTF8)
	// What the Reader does with an unmasked frame: orBytes, then check
	// only when a byte is not ASCII.
	run("reader", func(in []byte) bool { return orBytes(in)&msb == 0 || validUTF8(in) })
	run("stdlib", utf8.Valid)
	var p decode.Parser
	run("decode", func(in []byte) bool { _, err := p.Parse(in); return err == nil })
}

// TestUTF8Inputs: the benchmark's inputs are what they say.
func TestUTF8Inputs(t *testing.T) {
	for _, c := range utf8Inputs {
		multi := len(c.in) - utf8.RuneCountInString(c.in)
		var p decode.Parser
		if _, err := p.Parse([]byte(c.in)); len(c.in) != 1024 || err != nil || !validUTF8([]byte(c.in)) {
			t.Errorf("%s: %d bytes, %v", c.name, len(c.in), err)
		}
		t.Logf("%s: %d bytes, %d of them beyond the first of a character", c.name, len(c.in), multi)
	}
}
