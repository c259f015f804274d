package dispatch

import (
	"context"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/decode"
)

// TestArenaCells: every cell of every kind of arena leads back to its
// head, and a timed one's to its own deadline.
func TestArenaCells(t *testing.T) {
	rc := new(reqCtx)
	parent := context.Background()
	for _, kind := range []struct {
		big, timed bool
		n          int
	}{{false, false, arenaSmall}, {true, false, arenaBig}, {false, true, timedSmall}, {true, true, timedBig}} {
		a := newArena(rc, parent, kind.big, kind.timed)
		if int(a.n) != kind.n {
			t.Fatalf("%+v: %d cells", kind, a.n)
		}
		seen := map[*deadlineCtx]bool{}
		for i := range kind.n {
			h := a.cell(i)
			head, p := h.parent()
			if head != a || head.rc.Load() != rc || head.parent != parent {
				t.Fatalf("%+v: cell %d leads to %p, want %p", kind, i, head, a)
			}
			if !kind.timed {
				if p != parent {
					t.Fatalf("%+v: cell %d's parent %v", kind, i, p)
				}
				continue
			}
			dc := h.deadline()
			if p != context.Context(dc) || seen[dc] {
				t.Fatalf("%+v: cell %d's deadline is not its own", kind, i)
			}
			seen[dc] = true
		}
	}
}

// TestArenaGrowth: a callCtx whose parent stays hands its cells out of
// big arenas once the first one is used up; one whose parent changes gets
// a small one, and a timed call never replaces the untimed calls' arena.
// A connection's arenas (callCtx.ar) pass from one callCtx to the next.
func TestArenaGrowth(t *testing.T) {
	cc := &callCtx{parent: context.Background(), rc: new(reqCtx)}
	first := cc.take()
	for range arenaSmall - 1 {
		if arenaOf(cc.take()) != arenaOf(first) {
			t.Fatal("a new arena before the first was used up")
		}
	}
	h := cc.take()
	if a := arenaOf(h); a == arenaOf(first) || a.n != arenaBig {
		t.Fatalf("the second arena under the same parent has %d cells, want %d", a.n, arenaBig)
	}
	timed := cc.takeTimed(time.Second)
	if !arenaOf(timed).timed || arenaOf(cc.take()) != arenaOf(h) {
		t.Fatal("a timed call moved the untimed calls to another arena")
	}
	cc.parent = context.WithValue(context.Background(), struct{}{}, 1)
	if a := arenaOf(cc.take()); a.n != arenaSmall || a.parent != cc.parent {
		t.Fatalf("a new parent got an arena of %d cells", a.n)
	}

	var conn arenas // a connection's, used by two states in turn
	other := &callCtx{parent: cc.parent, rc: new(reqCtx)}
	cc.useArenas(&conn)
	c1 := cc.take()
	other.useArenas(&conn)
	c2 := other.take()
	if arenaOf(c1) != arenaOf(c2) || arenaOf(c2).rc.Load() != other.rc {
		t.Fatal("a connection's arena did not pass to the state that uses it next")
	}
}

// TestArenaLiveness: a cell is live from its take to its end and never
// again, as a connection's arena passes between two states' reqCtxs.
func TestArenaLiveness(t *testing.T) {
	parent := context.Background()
	a := &callCtx{parent: parent, rc: new(reqCtx)}
	b := &callCtx{parent: parent, rc: new(reqCtx)}
	var conn arenas
	var ended []*ctxCell
	live := func(h *ctxCell) bool {
		rc := h.enter()
		if rc != nil {
			rc.leave()
		}
		return rc != nil
	}
	check := func(step string, cur *ctxCell) {
		t.Helper()
		for _, h := range ended {
			if live(h) {
				t.Fatalf("%s: a cell that ended is live", step)
			}
		}
		if cur != nil && !live(cur) {
			t.Fatalf("%s: the call's own cell is not live", step)
		}
	}
	run := func(step string, cc *callCtx, ar *arenas) {
		t.Helper()
		if cc.ar = nil; ar != nil {
			cc.useArenas(ar)
		}
		h := cc.take()
		cc.rc.start(nil, &decode.Message{}, false)
		check(step+", started", h)
		cc.rc.end(h)
		cc.ar = nil
		ended = append(ended, h)
		check(step+", ended", nil)
	}
	for i := range 2 * arenaBig {
		switch i % 5 {
		case 0, 1:
			run("a on the connection", a, &conn)
		case 2:
			run("b on the connection", b, &conn)
		case 3:
			run("a on its own", a, nil)
		case 4:
			run("b on its own", b, nil)
		}
	}
}
