package dispatch_test

import (
	"context"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
)

// TestMethodTimeout: a method over its own timeout gets the timeout error
// with its context cancelled, while the other methods keep the engine's
// CallTimeout (and an Inline method with a Timeout is timed too).
func TestMethodTimeout(t *testing.T) {
	cancelled := make(chan bool, 1)
	slow := dispatch.Method{Name: "slow", Timeout: 30 * time.Millisecond, Handler: dispatch.HandlerFunc(
		func(ctx context.Context, _, dst []byte) ([]byte, error) {
			select {
			case <-ctx.Done():
				cancelled <- true
			case <-time.After(2 * time.Second):
				cancelled <- false
			}
			return append(dst, "true"...), nil
		})}
	inline := dispatch.Method{Name: "inline_wait", Inline: true, Timeout: 20 * time.Millisecond,
		Handler: dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
			<-ctx.Done()
			return append(dst, "true"...), nil
		})}
	f := func(e *dispatch.Engine, msg, want string) {
		t.Helper()
		if out := e.Process(nil, []byte(msg)); string(out) != want {
			t.Errorf("%s\n got %s\nwant %s", msg, out, want)
		}
	}
	timedOut := func(id, d string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32003,"message":"Request timed out","data":"call took longer than ` + d + `"}}`
	}
	for _, server := range []time.Duration{0, 500 * time.Millisecond} {
		e := newDemo(t, &dispatch.Options{CallTimeout: server}, slow, inline)
		f(e, `{"jsonrpc":"2.0","method":"slow","id":1}`, timedOut("1", "30ms"))
		if !<-cancelled {
			t.Errorf("CallTimeout %v: the slow method's context was not cancelled", server)
		}
		f(e, `{"jsonrpc":"2.0","method":"inline_wait","id":2}`, timedOut("2", "20ms"))
		// sleep keeps the engine's bound: 100 ms is within 500 ms (and no bound).
		f(e, `{"jsonrpc":"2.0","method":"sleep","params":[100],"id":3}`, `{"jsonrpc":"2.0","id":3,"result":100}`)
		if server > 0 {
			f(e, `{"jsonrpc":"2.0","method":"sleep","params":[5000],"id":4}`, timedOut("4", "500ms"))
		}
		e.Close()
	}
}
