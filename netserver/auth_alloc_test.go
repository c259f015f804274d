//go:build !race

package netserver

import (
	"bytes"
	"context"
	"strconv"
	"testing"

	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver/guard"
)

// TestAuthAllocsPerCall: once a connection is authenticated, a call costs
// no allocation with authentication, the rules and the rate limit on
// (ServeStdio over an in-memory stream: rpc.authenticate, then n calls).
func TestAuthAllocsPerCall(t *testing.T) {
	n := allocCalls
	opts := &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t), RateLimit: 1e9, RateBurst: 1e9})}
	s := newServer(t, opts, authSetup(t)...)
	defer s.Shutdown(context.Background())
	stream := frame.AppendFrame(nil, frame.NDJSON, []byte(authCall(aliceToken)))
	for i := range n {
		method := "whoami_inline"
		if i%10 == 0 {
			method = "whoami" // on a worker
		}
		stream = frame.AppendFrame(stream, frame.NDJSON,
			[]byte(`{"jsonrpc":"2.0","method":"`+method+`","id":`+strconv.Itoa(i)+`}`))
	}
	var in bytes.Reader
	var out bytes.Buffer
	run := func() {
		in.Reset(stream)
		out.Reset()
		if err := s.ServeStdio(&in, &out); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if c := bytes.Count(out.Bytes(), []byte(`"alice/bearer"`)); c != n {
		t.Fatalf("%d of %d calls answered as alice", c, n)
	}
	allocs := testing.AllocsPerRun(10, run)
	if perCall := allocs / float64(n); perCall >= 0.01+perCallContext { // the calls' own contexts (alloc_test.go)
		t.Errorf("%.4f allocations per call (%.0f per run of %d)", perCall, allocs, n)
	}
	t.Logf("%.0f allocations per run of %d calls (the authentication's included)", allocs, n)
}
