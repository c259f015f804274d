package dispatch_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
)

// TestTimeoutContext: the context of a call under a method timeout has
// the deadline; Err turns DeadlineExceeded at it whether or not the handler
// took Done, Done closes at it, a context derived from it (WithCancel,
// AfterFunc) is cancelled with it, and a context kept after the call is
// done and keeps its own deadline.
func TestTimeoutContext(t *testing.T) {
	const timeout = 40 * time.Millisecond
	type seen struct {
		deadline    time.Time
		hasDeadline bool
		errBefore   error
		errAfter    error
		child       error
		afterFunc   bool
		ctx         context.Context
	}
	got := make(chan seen, 1)
	var kept []context.Context
	handler := func(wait bool) dispatch.HandlerFunc {
		return func(ctx context.Context, _, dst []byte) ([]byte, error) {
			var s seen
			s.deadline, s.hasDeadline = ctx.Deadline()
			s.errBefore = ctx.Err()
			if wait {
				child, cancel := context.WithCancel(ctx)
				defer cancel()
				fired := make(chan struct{})
				stop := context.AfterFunc(ctx, func() { close(fired) })
				defer stop()
				select {
				case <-ctx.Done():
				case <-time.After(5 * time.Second):
				}
				<-child.Done()
				s.child = child.Err()
				select {
				case <-fired:
					s.afterFunc = true
				case <-time.After(5 * time.Second):
				}
			} else {
				for ctx.Err() == nil && time.Now().Before(s.deadline.Add(5*time.Second)) {
					time.Sleep(time.Millisecond)
				}
			}
			s.errAfter = ctx.Err()
			s.ctx = ctx
			got <- s
			return append(dst, "1"...), nil
		}
	}
	e := newDemo(t, nil,
		dispatch.Method{Name: "wait_done", Timeout: timeout, Handler: handler(true)},
		dispatch.Method{Name: "poll_err", Timeout: timeout, Inline: true, Handler: handler(false)})
	for _, method := range []string{"wait_done", "poll_err"} {
		start := time.Now()
		out := string(e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"`+method+`","id":1}`)))
		s := <-got
		if !strings.Contains(out, `"code":-32003`) || !strings.Contains(out, "longer than 40ms") {
			t.Errorf("%s: %s, want the timeout error", method, out)
		}
		if el := time.Since(start); el < timeout || el > 3*time.Second {
			t.Errorf("%s: answered after %v", method, el)
		}
		if !s.hasDeadline || s.deadline.Before(start.Add(timeout)) || s.deadline.After(start.Add(timeout+time.Second)) {
			t.Errorf("%s: Deadline %v %v, want about %v", method, s.deadline, s.hasDeadline, start.Add(timeout))
		}
		if s.errBefore != nil || !errors.Is(s.errAfter, context.DeadlineExceeded) {
			t.Errorf("%s: Err %v before the deadline, %v after; want nil, DeadlineExceeded", method, s.errBefore, s.errAfter)
		}
		if method == "wait_done" && (!errors.Is(s.child, context.DeadlineExceeded) || !s.afterFunc) {
			t.Errorf("%s: a derived context: %v, AfterFunc ran %v", method, s.child, s.afterFunc)
		}
		kept = append(kept, s.ctx)
	}
	for i, ctx := range kept {
		select {
		case <-ctx.Done():
		default:
			t.Errorf("kept context %d: not done after its call", i)
		}
		if ctx.Err() == nil {
			t.Errorf("kept context %d: Err nil after its call", i)
		}
	}
	if d0, _ := kept[0].Deadline(); d0.Equal(func() time.Time { d, _ := kept[1].Deadline(); return d }()) {
		t.Errorf("two calls' kept contexts share a deadline %v", d0)
	}
}
