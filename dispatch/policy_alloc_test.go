//go:build !race

package dispatch_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/engineconn"
)

// policyMethods are methods with a policy of their own: a timeout.
func policyMethods() []dispatch.Method {
	echo := dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		return append(dst, params...), nil
	})
	return []dispatch.Method{
		{Name: "timed_echo", Inline: true, Timeout: time.Second, Handler: echo},
	}
}

// TestPolicyAllocs: the hot path stays at 0 allocations with per-method
// policy configured, and a call under a method timeout too.
func TestPolicyAllocs(t *testing.T) {
	e := newDemo(t, nil, policyMethods()...)
	for _, c := range bench.Cases() {
		dst := make([]byte, 0, 8192)
		for range 10 {
			dst = e.Process(dst[:0], c.Msg)
		}
		if allocs := testing.AllocsPerRun(1000, func() { dst = e.Process(dst[:0], c.Msg) }); allocs != 0 {
			t.Errorf("%s: %v allocs, want 0", c.Name, allocs)
		}
	}
	// A connection with a method set and a rate charge, as netserver's.
	set := e.NewMethodSet([]string{"subtract", "sum", "notify_", "update", "get_data", "echo", "timed_"})
	c := engineconn.NewConn(e, dispatch.WithMethodSet(context.Background(), set), nil, false)
	defer c.Close()
	c.SetCharge(func(int) bool { return true })
	for _, tc := range bench.Cases() {
		dst := make([]byte, 0, 8192)
		for range 10 {
			dst, _ = c.Try(dst[:0], tc.Msg)
		}
		if allocs := testing.AllocsPerRun(1000, func() { dst, _ = c.Try(dst[:0], tc.Msg) }); allocs != 0 {
			t.Errorf("conn with a set and a charge: %s: %v allocs, want 0", tc.Name, allocs)
		}
		if strings.Contains(string(dst), "-32601") {
			t.Errorf("%s: a method outside the set: %s", tc.Name, dst)
		}
	}
	// A call under a method timeout: the deadline is kept beside the call's
	// context in a timed arena,
	// its timer made only when the handler waits on Done.
	for _, msg := range [][]byte{
		[]byte(`{"jsonrpc":"2.0","method":"timed_echo","params":[1],"id":1}`),
		[]byte(`[{"jsonrpc":"2.0","method":"timed_echo","params":[1],"id":1},{"jsonrpc":"2.0","method":"timed_echo","params":[2],"id":2}]`),
	} {
		dst := e.Process(nil, msg)
		if allocs := testing.AllocsPerRun(1000, func() { dst = e.Process(dst[:0], msg) }); allocs != 0 {
			t.Errorf("a timed call %s: %v allocs, want 0", msg, allocs)
		}
	}
}
