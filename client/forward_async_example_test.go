package client_test

import (
	"context"
	"fmt"
	"time"

	"github.com/jetrpc/jetrpc/client"
)

// answer is a Completion that hands the answer to a channel.
type answer chan string

func (a answer) ForwardDone(res []byte, err error, _ *client.Later) {
	a <- fmt.Sprint(string(res), " ", err)
}

// Forward a call without waiting for it, as a gateway does: Start returns
// once the request is queued, and the Completion gets the answer on the
// goroutine that read it. A timeout costs a pooled timer, no context.
func ExamplePool_NewForward() {
	addr, _, stop := serveDemo()
	defer stop()
	c, err := client.Dial(context.Background(), "tcp", addr, nil)
	if err != nil {
		panic(err)
	}
	p, err := client.NewPool([]*client.Client{c}, nil)
	if err != nil {
		panic(err)
	}
	defer p.Close()
	done := make(answer, 1)
	f := p.NewForward("subtract", done)
	f.Start([]byte("result: "), []byte(`[42,23]`), 5*time.Second)
	fmt.Println(<-done)
	f = p.NewForward("sleep", done)
	f.Start(nil, []byte(`[1000]`), 20*time.Millisecond)
	fmt.Println(<-done)
	// Output:
	// result: 19 <nil>
	//  context deadline exceeded
}

// ForwardRaw under a timeout that costs no context allocation.
func ExamplePool_ForwardTimeout() {
	addr, _, stop := serveDemo()
	defer stop()
	c, err := client.Dial(context.Background(), "tcp", addr, nil)
	if err != nil {
		panic(err)
	}
	p, err := client.NewPool([]*client.Client{c}, nil)
	if err != nil {
		panic(err)
	}
	defer p.Close()
	res, err := p.ForwardTimeout(context.Background(), nil, "subtract", []byte(`[42,23]`), time.Second)
	fmt.Println(string(res), err)
	_, err = p.ForwardTimeout(context.Background(), nil, "sleep", []byte(`[1000]`), 20*time.Millisecond)
	fmt.Println(err)
	// Output:
	// 19 <nil>
	// context deadline exceeded
}
