package streamstore_test

import (
	"context"
	"fmt"

	"github.com/jetrpc/jetrpc/streamstore"
)

// A server appends each event of a stream as it writes it; a client that
// comes back with the id of the last event it got is replayed the rest.
func Example() {
	ctx := context.Background()
	var store streamstore.Store = streamstore.NewMemory(nil) // or natsstore.Connect, shared by replicas
	key := streamstore.Key{Session: "s1", Stream: 7}
	for i, data := range []string{"one", "two", "three"} {
		ev := streamstore.Event{Seq: uint64(i + 1), Data: []byte(data), Final: i == 2}
		if err := store.Append(ctx, key, ev); err != nil {
			panic(err)
		}
	}
	// The client got event 1 and lost its connection.
	found, err := store.Replay(ctx, key, 1, func(ev streamstore.Event) error {
		fmt.Println(ev.Seq, string(ev.Data), ev.Final)
		return nil
	})
	fmt.Println(found, err)
	_ = store.Forget(ctx, "s1") // the session ended
	found, _ = store.Replay(ctx, key, 0, func(streamstore.Event) error { return nil })
	fmt.Println(found)
	// Output:
	// 2 two false
	// 3 three true
	// true <nil>
	// false
}
