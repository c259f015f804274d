//go:build !race

package dispatch_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/dispatch"
)

// atomicObserver counts with atomics only, as an Observer should.
type atomicObserver struct{ n atomic.Int64 }

func (o *atomicObserver) Method(string) dispatch.MethodObserver     { return o }
func (o *atomicObserver) Message(in, out, batch int)                { o.n.Add(int64(in)) }
func (o *atomicObserver) Event(dispatch.Event)                      { o.n.Add(1) }
func (o *atomicObserver) Begin(context.Context)                     { o.n.Add(1) }
func (o *atomicObserver) End(_ context.Context, c dispatch.CallEnd) { o.n.Add(int64(c.Duration)) }

// TestProcessAllocsObserved: the observer hooks cost Process no
// allocation (no boxing of what they pass).
func TestProcessAllocsObserved(t *testing.T) {
	e := newDemo(t, &dispatch.Options{Observer: &atomicObserver{}})
	for _, c := range bench.Cases() {
		dst := make([]byte, 0, 8192)
		for range 10 {
			dst = e.Process(dst[:0], c.Msg)
		}
		if allocs := testing.AllocsPerRun(1000, func() { dst = e.Process(dst[:0], c.Msg) }); allocs != 0 {
			t.Errorf("%s: %v allocs per Process with an observer, want 0", c.Name, allocs)
		}
	}
}

// TestContextAllocs: Meta, RequestID, MethodName and OriginOf cost a
// handler no allocation (what observers, logs and tracing call per call).
func TestContextAllocs(t *testing.T) {
	var n int
	read := dispatch.Method{Name: "read", Inline: true, Handler: dispatch.HandlerFunc(
		func(ctx context.Context, _, dst []byte) ([]byte, error) {
			n += len(dispatch.Meta(ctx)) + len(dispatch.RequestID(ctx)) + len(dispatch.MethodName(ctx))
			if dispatch.OriginOf(ctx) != nil {
				n++
			}
			return dst, nil
		})}
	e := newDemo(t, nil, read)
	msg := []byte(`{"jsonrpc":"2.0","method":"read","id":1,"_meta":{"k":1}}`)
	dst := e.Process(nil, msg)
	if allocs := testing.AllocsPerRun(1000, func() { dst = e.Process(dst[:0], msg) }); allocs != 0 {
		t.Errorf("%v allocs per call reading the context, want 0", allocs)
	}
	if n == 0 {
		t.Error("the handler saw nothing")
	}
}
