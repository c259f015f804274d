//go:build !race

package accesslog_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/accesslog"
)

// TestLevelOffAllocs: with the per-call level off and no slow call, the
// access log costs Process no allocation.
func TestLevelOffAllocs(t *testing.T) {
	e, _ := newLogged(t, slog.LevelInfo, &accesslog.Options{SlowCall: time.Second})
	msg := []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	dst := e.Process(nil, msg)
	if allocs := testing.AllocsPerRun(1000, func() { dst = e.Process(dst[:0], msg) }); allocs != 0 {
		t.Errorf("%v allocs per Process with the access log off, want 0", allocs)
	}
}
