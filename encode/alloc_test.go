//go:build !race

package encode_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/encode"
)

func TestWritersDoNotAllocate(t *testing.T) {
	dst := make([]byte, 0, 4096)
	id, result, params, data := []byte(`"a\u0041"`), []byte(`{"a":[1,2,3]}`), []byte(`[42,23]`), []byte(`{"limit":1000}`)
	e := encode.NewError(encode.CodeInvalidParams, "bad \"a\"\n\xff\u2028", data)
	f := func(name string, write func()) {
		t.Helper()
		if n := testing.AllocsPerRun(100, write); n != 0 {
			t.Errorf("%s: %v allocs per run, want 0", name, n)
		}
	}
	f("AppendResult", func() { dst = encode.AppendResult(dst[:0], id, result) })
	f("AppendResultStart/End", func() {
		dst = encode.AppendResultEnd(append(encode.AppendResultStart(dst[:0], id), result...))
	})
	f("AppendError", func() { dst = encode.AppendError(dst[:0], id, -32000, "boom \"x\"\n", data) })
	f("AppendErrorValue", func() { dst = encode.AppendErrorValue(dst[:0], id, e) })
	f("AppendStdError", func() { dst = encode.AppendStdError(dst[:0], nil, encode.CodeParseError) })
	f("AppendStdError other", func() { dst = encode.AppendStdError(dst[:0], id, 77) })
	f("AppendRequest", func() { dst = encode.AppendRequest(dst[:0], id, "subtract", params) })
	f("AppendNotification", func() { dst = encode.AppendNotification(dst[:0], "update", params) })
	f("AppendString", func() { dst = encode.AppendString(dst[:0], "héllo \"wörld\"\n\x01\xff\u2028") })
	f("AppendStringBytes", func() { dst = encode.AppendStringBytes(dst[:0], params) })
	f("AppendInt", func() { dst = encode.AppendInt(dst[:0], -9007199254740993) })
	f("Batch", func() {
		dst = encode.AppendBatchStart(dst[:0])
		dst = encode.AppendBatchMember(dst, 0, result)
		dst = encode.AppendBatchSep(dst, 0)
		dst = encode.AppendStdError(dst, id, encode.CodeMethodNotFound)
		dst = encode.FinishBatch(dst, 0)
		dst = encode.AppendBatchEnd(dst[:0])
	})
	var err error
	f("Code.Err", func() { err = encode.CodeTimeout.Err() })
	_ = err
}
