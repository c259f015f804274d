package decode_test

import (
	"bytes"
	"testing"

	"github.com/jetrpc/jetrpc/decode"
)

// TestMoved: after Moved, the last message's slices (and a batch's
// members) read the copy, so the original buffer may be reused; an escaped
// method name, which lives in the Parser, stays as it was.
func TestMoved(t *testing.T) {
	f := func(in string) {
		t.Helper()
		var p decode.Parser
		buf := []byte(in)
		m, err := p.Parse(buf)
		if err != nil {
			t.Fatal(err)
		}
		var want []decode.Message
		if m.Kind == decode.Batch {
			for i := range p.BatchLen() {
				var bm decode.Message
				p.BatchMember(i, &bm)
				want = append(want, bm.Clone())
			}
		} else {
			want = append(want, m.Clone())
		}
		cp := bytes.Clone(buf)
		p.Moved(cp)
		for i := range buf {
			buf[i] = 'X' // the reader's buffer moves on
		}
		if got := p.Input(); &got[0] != &cp[0] {
			t.Fatalf("%s: Input is not the copy", in)
		}
		var got []decode.Message
		if m.Kind == decode.Batch {
			for i := range p.BatchLen() {
				var bm decode.Message
				p.BatchMember(i, &bm)
				got = append(got, bm)
			}
		} else {
			got = append(got, *p.Message())
		}
		for i := range want {
			w, g := want[i], got[i]
			for _, pair := range [][2][]byte{{w.Method, g.Method}, {w.ID, g.ID}, {w.Params, g.Params}, {w.Meta, g.Meta}, {w.Result, g.Result}, {w.Error, g.Error}} {
				if !bytes.Equal(pair[0], pair[1]) || (pair[0] == nil) != (pair[1] == nil) {
					t.Fatalf("%s: member %d: %q after Moved, want %q", in, i, pair[1], pair[0])
				}
			}
		}
	}
	f(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1,"_meta":{"a":1}}`)
	f(`{"jsonrpc":"2.0","method":"m\u0065thod","params":{"a":"b"},"id":"x"}`)
	f(`{"jsonrpc":"2.0","method":"","id":null}`)
	f(`{"jsonrpc":"2.0","result":{"a":1},"id":3}`)
	f(`[{"jsonrpc":"2.0","method":"a","params":[1],"id":1},{"jsonrpc":"2.0","method":"b\u0062"}]`)
}
