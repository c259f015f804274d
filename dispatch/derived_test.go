package dispatch_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
)

// TestDerivedContext: a context derived from a call's (WithCancel,
// WithTimeout) is done when the call ends, and deriving it starts no
// goroutine to watch the call's context.
func TestDerivedContext(t *testing.T) {
	derived := make(chan context.Context, 1)
	var extra int
	e := newDemo(t, nil, dispatch.Method{Name: "derive",
		Handler: dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
			before := runtime.NumGoroutine()
			d, cancel := context.WithTimeout(ctx, time.Hour)
			_ = cancel // kept past the call on purpose: the call's end cancels it
			extra = runtime.NumGoroutine() - before
			derived <- d
			return append(dst, '1'), nil
		})})
	out := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"derive","id":1}`))
	if string(parseOne(t, out).Result) != "1" {
		t.Fatalf("got %s", out)
	}
	if extra > 0 { // (one of the process's own may end meanwhile: internal/clock's calibration)
		t.Errorf("WithTimeout of a call's context started %d goroutines", extra)
	}
	select {
	case <-(<-derived).Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a context derived from a call's is not done when the call ended")
	}
}
