package dispatch_test

import (
	"context"
	"testing"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/dispatch"
)

// BenchmarkResultCheck: what checking a raw handler's result costs (the
// handler contract: only valid JSON leaves the engine), on the large case
// (about 1 KiB of params, sent back inside an array: [params], so that
// the result is not the params byte for byte, which needs no check), with
// the method registered Inline: "checked" is the default, "trusted" sets
// Method.TrustedResult, which skips the check.
func BenchmarkResultCheck(b *testing.B) {
	var msg []byte
	for _, c := range bench.Cases() {
		if c.Name == "large" {
			msg = c.Msg
		}
	}
	echo := dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		dst = append(dst, '[')
		dst = append(dst, params...)
		return append(dst, ']'), nil
	})
	for _, trusted := range []bool{false, true} {
		name := "checked"
		if trusted {
			name = "trusted"
		}
		b.Run(name, func(b *testing.B) {
			e := newDemo(b, nil, dispatch.Method{Name: "echo1k", Handler: echo, Inline: true, TrustedResult: trusted})
			m := []byte(string(msg))
			m = []byte(replaceMethod(string(m), "echo1k"))
			dst := make([]byte, 0, 4096)
			b.SetBytes(int64(len(m)))
			b.ReportAllocs()
			for b.Loop() {
				dst = e.Process(dst[:0], m)
			}
		})
	}
}

func replaceMethod(msg, name string) string {
	const from = `"method":"echo"`
	for i := 0; i+len(from) <= len(msg); i++ {
		if msg[i:i+len(from)] == from {
			return msg[:i] + `"method":"` + name + `"` + msg[i+len(from):]
		}
	}
	panic("no echo method in " + msg)
}
