package dispatch_test

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
)

type parentKey struct{}

// TestKeptContextParent: a kept context keeps its parent's values and its
// deadline after its call, whichever parent the calls after it have and
// however many there are (past its arena's cells), and a timed one keeps
// its own deadline.
func TestKeptContextParent(t *testing.T) {
	type kept struct {
		ctx   context.Context
		want  int
		timed bool
		dl    time.Time
	}
	var saved []kept
	keep := func(timed bool) dispatch.HandlerFunc {
		return func(ctx context.Context, params, dst []byte) ([]byte, error) {
			n, _ := strconv.Atoi(string(params[1 : len(params)-1]))
			dl, _ := ctx.Deadline()
			saved = append(saved, kept{ctx: ctx, want: n, timed: timed, dl: dl})
			return append(dst, params...), nil
		}
	}
	e := newDemo(t, nil,
		dispatch.Method{Name: "keep", Handler: keep(false)},
		dispatch.Method{Name: "keep_timed", Handler: keep(true), Timeout: time.Hour})
	base := make([]context.Context, 3)
	for i := range base {
		base[i] = context.WithValue(context.Background(), parentKey{}, i)
	}
	for i := range 1000 {
		method := "keep"
		if i%7 == 3 {
			method = "keep_timed"
		}
		parent := i % 3 // changing parents
		if i >= 500 {
			parent = 1 // then one for long: arenas used up
		}
		msg := `{"jsonrpc":"2.0","method":"` + method + `","params":[` + strconv.Itoa(parent) + `],"id":` + strconv.Itoa(i) + `}`
		if out := e.ProcessContext(base[parent], nil, []byte(msg)); parseOne(t, out).Error != nil {
			t.Fatalf("%s: %s", msg, out)
		}
	}
	runtime.GC() // kept contexts hold their arenas
	for i, k := range saved {
		if got, _ := k.ctx.Value(parentKey{}).(int); got != k.want {
			t.Fatalf("call %d: its kept context shows the parent value %d, want %d", i, got, k.want)
		}
		if !errors.Is(k.ctx.Err(), context.Canceled) {
			t.Fatalf("call %d: Err %v after the call", i, k.ctx.Err())
		}
		dl, ok := k.ctx.Deadline()
		if ok != k.timed || !dl.Equal(k.dl) {
			t.Fatalf("call %d: Deadline %v %v after the call, %v during it", i, dl, ok, k.dl)
		}
		if dispatch.RequestID(k.ctx) != nil {
			t.Fatalf("call %d: RequestID %s after the call", i, dispatch.RequestID(k.ctx))
		}
	}
}
