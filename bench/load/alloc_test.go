//go:build !race

package load

import (
	"testing"
)

// TestSendCheckAllocs: making a call's bytes and checking its answer
// allocate nothing.
func TestSendCheckAllocs(t *testing.T) {
	reqs, err := Mix("all")
	if err != nil {
		t.Fatal(err)
	}
	w := newWindow(4, 16)
	buf := make([]byte, 0, 8192)
	ans := make([]byte, 0, 8192)
	for i := range reqs {
		req := &reqs[i]
		if req.Holes() == 0 {
			continue
		}
		allocs := testing.AllocsPerRun(100, func() {
			id := w.start(req, 1)
			buf = req.Append(buf[:0], id)
			ans = appendAnswer(ans[:0], req, id)
			w.check(ans, 2)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs per call", req.Name, allocs)
		}
	}
	if w.counts.Failed() != 0 || w.inflight() != 0 {
		t.Errorf("counts %+v, in flight %d", w.counts, w.inflight())
	}
}
