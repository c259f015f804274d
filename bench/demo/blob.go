package demo

import (
	"bytes"
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// MaxBlob is the largest n blob takes: 1 GiB.
const MaxBlob = 1 << 30

var errBlob = dispatch.NewError(encode.CodeInvalidParams, "Invalid params",
	[]byte(`"want [n] or {\"n\":n}, an integer from 0 to 1073741824"`))

// xs is what blob writes, a piece at a time.
var xs = bytes.Repeat([]byte{'x'}, 64<<10)

// blob: [n] or {"n":n} -> a JSON string of n "x" bytes, written with the call's
// dispatch.ResultWriter: streamed where the transport can send it in
// pieces (it is never held whole), held up to MaxResponse elsewhere.
func blob(ctx context.Context, params, dst []byte) ([]byte, error) {
	var it decode.Iter
	if !it.Reset(params) || !it.Next() || it.IsObject() && !decode.KeyEquals(it.Key(), "n") {
		return dst, errBlob
	}
	n, err := decode.ParseInt(it.Value())
	if err != nil || n < 0 || n > MaxBlob || it.Next() {
		return dst, errBlob
	}
	w := dispatch.StreamResult(ctx)
	if err := w.BeginString(); err != nil {
		return dst, err
	}
	for n > 0 {
		k := min(n, int64(len(xs)))
		if _, err := w.Write(xs[:k]); err != nil {
			return dst, err
		}
		n -= k
	}
	return dst, w.EndString()
}
