package decode

import (
	"reflect"
	"testing"
)

// TestBatchMember: BatchLen, BatchKind and BatchMember read what Batch returns, for every
// batch of the differential corpus (escaped method names, duplicates, invalid members,
// responses), and Batch returns the same after them.
func TestBatchMember(t *testing.T) {
	var p Parser
	batches := 0
	for _, in := range corpus() {
		m, err := p.Parse(in)
		if err != nil || m.Kind != Batch {
			if p.BatchLen() != 0 || p.Batch() != nil {
				t.Fatalf("%q: not a batch, BatchLen %d", in, p.BatchLen())
			}
			continue
		}
		batches++
		want := append([]Message(nil), p.Batch()...)
		if p.BatchLen() != len(want) {
			t.Fatalf("%q: BatchLen %d, Batch has %d", in, p.BatchLen(), len(want))
		}
		for i := range want {
			var got Message
			p.BatchMember(i, &got)
			kind, method := p.BatchMethod(i)
			if !reflect.DeepEqual(got, want[i]) || p.BatchKind(i) != want[i].Kind || kind != want[i].Kind ||
				!reflect.DeepEqual(method, want[i].Method) {
				t.Fatalf("%q member %d: BatchMember %+v, Batch %+v", in, i, got, want[i])
			}
		}
	}
	if batches < 100 {
		t.Fatalf("only %d batches in the corpus", batches)
	}
}
