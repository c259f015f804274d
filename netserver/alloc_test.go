//go:build !race

package netserver

import (
	"bytes"
	"context"
	"strconv"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
)

var allocCalls = 10000

// countWriter counts the bytes written to it.
type countWriter struct{ n int }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return len(p), nil
}

// perCallContext is what the engine allocates per call: the calls' own
// contexts, 224 to an arena (dispatch's context.go).
const perCallContext = 1.0 / 224

// TestAllocsPerCall drives the connection loop (ServeStdio over an in-memory
// stream of n calls) and checks that a call costs no allocation in steady
// state: what a run allocates (the connection's context, its reader's
// first buffer...) spread over n calls stays far below one, with an arena
// of contexts per 224 calls.
func TestAllocsPerCall(t *testing.T) {
	slowEcho := withMethod(dispatch.Method{Name: "slow_echo", Handler: dispatch.HandlerFunc(
		func(_ context.Context, params, dst []byte) ([]byte, error) { return append(dst, params...), nil })})
	limit := 0.01 + perCallContext
	f := func(name string, kind frame.Kind, workerEvery int) {
		t.Run(name, func(t *testing.T) {
			n := allocCalls
			s := New(newEngineWith(t, dispatch.Options{}, slowEcho), &Options{Framing: kind, Logger: quiet})
			defer s.Shutdown(context.Background())
			var stream []byte
			for i := range n {
				method := "subtract"
				if workerEvery > 0 && i%workerEvery == 0 {
					method = "slow_echo"
				}
				msg := `{"jsonrpc":"2.0","method":"` + method + `","params":[42,23],"id":` + strconv.Itoa(i) + `}`
				stream = frame.AppendFrame(stream, kind, []byte(msg))
			}
			var in bytes.Reader
			var out countWriter
			run := func() {
				in.Reset(stream)
				if err := s.ServeStdio(&in, &out); err != nil {
					t.Fatal(err)
				}
			}
			run()
			allocs := testing.AllocsPerRun(20, run)
			if perCall := allocs / float64(n); perCall >= limit {
				t.Errorf("%.4f allocations per call (%.0f per run of %d)", perCall, allocs, n)
			}
			t.Logf("%.0f allocations per run of %d calls", allocs, n)
		})
	}
	f("ndjson/inline", frame.NDJSON, 0)
	f("header/inline", frame.Header, 0)
	f("len32/inline", frame.Len32, 0)
	f("ndjson/worker-every-10", frame.NDJSON, 10)
}
