package dispatch_test

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/engineconn"
)

// TestConnQuietNotifications: a notification of a method that may block
// goes to the connection's queue (RouteOrdered) until the method has
// proved quick; from then on it runs on the reading goroutine, but only
// while nothing the connection routed to its queue is waiting or running
// (Run and RejectRouted finish it): a notification never overtakes one
// read before it, whichever way each runs.
func TestConnQuietNotifications(t *testing.T) {
	var (
		mu  sync.Mutex
		log []string
	)
	record := func(params []byte) {
		mu.Lock()
		log = append(log, string(params))
		mu.Unlock()
	}
	note := dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		record(params)
		return dst, nil
	})
	release := make(chan struct{})
	block := dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		<-release
		record(params)
		return dst, nil
	})
	e := newDemo(t, nil, dispatch.Method{Name: "note", Handler: note}, dispatch.Method{Name: "block", Handler: block})
	conn := newConn(e, nil, false)
	defer conn.Close()
	notify := func(method string, n int) []byte {
		return []byte(`{"jsonrpc":"2.0","method":"` + method + `","params":[` + strconv.Itoa(n) + `]}`)
	}

	// Learning: each notification is routed to the queue and run there
	// (here, at once) until the method has proved quick.
	n, learned := 0, false
	for ; n < 2000 && !learned; n++ {
		out, r := conn.Try(nil, notify("note", n))
		if len(out) != 0 {
			t.Fatalf("notification %d answered %s", n, out)
		}
		if r == nil {
			learned = true
			break
		}
		if r.Route() != engineconn.RouteOrdered {
			t.Fatalf("notification %d routed %v, want RouteOrdered", n, r.Route())
		}
		if out := conn.Run(nil, r); len(out) != 0 {
			t.Fatalf("notification %d answered %s", n, out)
		}
	}
	if !learned {
		t.Fatalf("note still routed to the queue after %d quick runs", n)
	}
	if n < 8 {
		t.Fatalf("note ran on the reader after %d runs: it had not proved quick", n)
	}
	// Quick runs on the reader up to the method's best score (twice the
	// streak that taught it: cost.go), so that one run the machine's load
	// makes slow (over 50 us, a goroutine waiting for a core) leaves it
	// learned, as it does in service; just learned, one would unlearn it.
	// A note routed meanwhile runs from the queue at once, in order.
	for streak, tries := 0, 0; streak < 64; tries++ {
		if tries == 5000 {
			t.Fatalf("note not 64 times in a row on the reader in %d tries", tries)
		}
		n++
		out, r := conn.Try(nil, notify("note", n))
		if len(out) != 0 {
			t.Fatalf("notification %d answered %s", n, out)
		}
		if streak++; r != nil {
			streak = 0
			conn.Run(nil, r)
		}
	}

	// A notification waiting on the queue: the next one waits behind it.
	quiet := func(round int) {
		t.Helper()
		for i := range 3 {
			if out, r := conn.Try(nil, notify("note", 1000*round+i)); r != nil || len(out) != 0 {
				t.Fatalf("round %d: note with the queue empty: routed %v, %s", round, r != nil, out)
			}
		}
	}
	for round := 1; round <= 3; round++ {
		quiet(round)
		rb := mustRoute(t, conn, notify("block", 1000*round+10))
		rn := mustRoute(t, conn, notify("note", 1000*round+11))
		rn2 := mustRoute(t, conn, notify("note", 1000*round+12))
		done := make(chan struct{})
		go func() { // the connection's queue: one at a time, in order
			defer close(done)
			conn.Run(nil, rb)
			conn.Run(nil, rn)
			if round == 2 {
				conn.RejectRouted(nil, rn2, encode.CodeOverloaded) // a notification: no answer, never run
			} else {
				conn.Run(nil, rn2)
			}
		}()
		release <- struct{}{}
		<-done
	}
	quiet(4)

	var want []string
	for i := range n + 1 { // the last, n, ran on the reader
		want = append(want, "["+strconv.Itoa(i)+"]")
	}
	for round := 1; round <= 4; round++ {
		for _, i := range []int{0, 1, 2, 10, 11, 12} {
			if round == 4 && i >= 10 || round == 2 && i == 12 {
				continue
			}
			want = append(want, "["+strconv.Itoa(1000*round+i)+"]")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(log, want) {
		t.Fatalf("notifications ran in the order\n%v\nwant\n%v", log, want)
	}
}

// mustRoute hands msg to c and fails t unless it was routed to the
// connection's queue.
func mustRoute(t *testing.T, c *engineconn.Conn, msg []byte) engineconn.Routed {
	t.Helper()
	out, r := c.Try(nil, msg)
	if r == nil || r.Route() != engineconn.RouteOrdered {
		t.Fatalf("%s: routed %v, answered %s; want RouteOrdered", msg, r != nil, out)
	}
	return r
}
