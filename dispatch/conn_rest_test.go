package dispatch_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
)

// TestConnHeldState: a connection's reading goroutine keeps its working
// state from one Try to the next (until Rest), and a message Try routes
// takes that state with it. A message parsed for a worker must then never
// share its state with the messages the reader goes on with: the routed
// call's answer keeps its own id and params while the reader answers
// others, before and after Rest.
func TestConnHeldState(t *testing.T) {
	release := make(chan struct{})
	slow := dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		<-release
		return append(dst, params...), nil
	})
	echo := dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		return append(dst, params...), nil
	})
	e := newDemo(t, nil,
		dispatch.Method{Name: "slow", Handler: slow},
		dispatch.Method{Name: "quick", Handler: echo, Inline: true})
	conn := newConn(e, nil, false)
	defer conn.Close()

	call := func(method string, id int) []byte {
		return []byte(`{"jsonrpc":"2.0","method":"` + method + `","params":[` + strconv.Itoa(id) +
			`,"p` + strconv.Itoa(id) + `"],"id":` + strconv.Itoa(id) + `}`)
	}
	want := func(id int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":[` + strconv.Itoa(id) +
			`,"p` + strconv.Itoa(id) + `"]}`
	}
	quick := func(id int, try func(dst, msg []byte) ([]byte, bool)) {
		t.Helper()
		out, inline := try(nil, call("quick", id))
		if !inline || string(out) != want(id) {
			t.Fatalf("quick %d: inline %v, %s; want %s", id, inline, out, want(id))
		}
	}
	try := func(dst, msg []byte) ([]byte, bool) {
		out, r := conn.TryBuffered(dst, msg)
		if r != nil {
			t.Fatalf("%s was routed", msg)
		}
		return out, true
	}

	quick(1, try) // leaves the reader's state held
	for round := range 3 {
		id := 100 + round
		out, r := conn.TryBuffered(nil, call("slow", id)) // takes the held state along
		if r == nil {
			t.Fatalf("slow %d ran on the reader: %s", id, out)
		}
		got := make(chan []byte, 1)
		go func() { got <- conn.Run(nil, r) }()
		for i := range 50 { // the reader goes on, parsing into a state of its own
			quick(1000*(round+1)+i, try)
		}
		if round == 1 {
			conn.Rest() // gives the held state back to the pool
			quick(5000, try)
		}
		release <- struct{}{}
		select {
		case out := <-got:
			if string(out) != want(id) {
				t.Fatalf("routed call %d answered %s, want %s", id, out, want(id))
			}
		case <-time.After(10 * time.Second):
			t.Fatal("routed call not answered")
		}
	}
	conn.Rest()
	conn.Rest() // nothing held: nothing to do
	quick(7, try)
}
