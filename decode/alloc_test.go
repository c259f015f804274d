//go:build !race

package decode

import (
	"testing"
)

func TestParseAllocs(t *testing.T) {
	var p Parser
	inputs := []string{smallMsg, namedMsg, largeMsg, batch10Msg,
		req(`"m\u0065thod":"caf\u00e9","params":[1],"id":"a\u0041"`), // escaped names use the scratch
		`{"jsonrpc":"2.0","method":"a","params":[1,}`,                // errors are the Parser's own
		"[" + batch10Msg[1:len(batch10Msg)-1] + "," + batch10Msg[1:], // a bigger batch after a smaller one
	}
	for _, in := range inputs {
		data := []byte(in)
		p.Parse(data) // warm up: the Parser grows its buffers once
		if n := testing.AllocsPerRun(100, func() { p.Parse(data) }); n != 0 {
			t.Errorf("Parse(%.40q...): %v allocs", in, n)
		}
	}
}

func TestHelperAllocs(t *testing.T) {
	params := []byte(`{"minuend":42,"subtr\u0061hend":23.5,"list":[1,"two",{"three":3}]}`)
	buf := make([]byte, 0, 64)
	check := func(name string, f func()) {
		t.Helper()
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocs", name, n)
		}
	}
	check("Iter", func() {
		var it Iter
		it.Reset(params)
		for it.Next() {
			_ = it.Key()
			_ = it.Value()
		}
	})
	check("KeyEquals", func() {
		_ = KeyEquals([]byte("minuend"), "minuend")
		_ = KeyEquals([]byte(`subtr\u0061hend`), "subtrahend")
	})
	check("ParseInt", func() { _, _ = ParseInt([]byte("-9007199254740993")) })
	check("ParseFloat", func() { _, _ = ParseFloat([]byte("-2.5e-3")) })
	check("AppendUnquote", func() { buf, _ = AppendUnquote(buf[:0], []byte(`"caf\u00e9 \ud83d\ude00"`)) })
	check("Valid", func() { _ = Valid(params, 0) })
	check("SkipValue", func() { _ = SkipValue(params, 0) })
}
