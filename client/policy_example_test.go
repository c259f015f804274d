package client_test

import (
	"context"
	"fmt"
	"time"

	"github.com/jetrpc/jetrpc/client"
)

// Send a header and a credential: an API key on every HTTP request, and
// an HS256 JWT with a fresh iat (go-ethereum's engine API, jetrpc serve
// --jwt-secret); client.BearerToken gives a static token instead. Over
// TCP the token goes in the rpc.authenticate call that opens the
// connection.
func ExampleJWT() {
	_, url, stop := serveDemo()
	defer stop()
	secret := make([]byte, 32) // client.LoadJWTSecret("jwt.hex") reads go-ethereum's file
	jwt, err := client.JWT(secret)
	if err != nil {
		panic(err)
	}
	c, err := client.DialHTTP(url, &client.Options{Header: []string{"X-Api-Key: 123"}, Token: jwt})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	var diff int
	err = c.Call(context.Background(), "subtract", []int{42, 23}, &diff)
	fmt.Println(diff, err)
	// Output: 19 <nil>
}

// Redial a lost connection, with a hook that re-subscribes after each
// redial, and watch the state.
func ExampleReconnect() {
	addr, _, stop := serveDemo()
	defer stop()
	ctx := context.Background()
	c, err := client.Dial(ctx, "tcp", addr, &client.Options{
		Reconnect: &client.Reconnect{
			MinDelay: 50 * time.Millisecond, MaxDelay: 5 * time.Second, // the defaults
			OnReconnect: func(ctx context.Context, c *client.Client) {
				c.Call(ctx, "update", []int{1}, nil) // subscribe again
			},
			OnState: func(s client.State) { _ = s }, // connected, reconnecting, closed
		},
	})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	fmt.Println(c.State())
	// Output: connected
}

// Send calls of idempotent methods again after a transport error or an
// "overloaded" answer, within a budget of 10% extra calls.
func ExampleRetryPolicy() {
	addr, _, stop := serveDemo()
	defer stop()
	ctx := context.Background()
	c, err := client.Dial(ctx, "tcp", addr, &client.Options{
		Retry: &client.RetryPolicy{
			Idempotent:  []string{"subtract", "get_*"}, // names, or prefixes with *
			MaxAttempts: 3,
			Codes:       []int{-32005}, // "Limit exceeded" is worth another try
			Budget:      0.1,
		},
	})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	var diff int
	err = c.Call(ctx, "subtract", []int{42, 23}, &diff)
	fmt.Println(diff, err, c.RetryStats().Retries)
	// Output: 19 <nil> 0
}

// Call three endpoints as one: failover of idempotent calls, ejection of
// failing endpoints, and hedging after 20ms.
func ExampleNewPool() {
	ctx := context.Background()
	var cs []*client.Client
	for range 3 {
		addr, _, stop := serveDemo()
		defer stop()
		c, err := client.Dial(ctx, "tcp", addr, &client.Options{Reconnect: &client.Reconnect{}})
		if err != nil {
			panic(err)
		}
		cs = append(cs, c)
	}
	p, err := client.NewPool(cs, &client.PoolOptions{
		Retry:      &client.RetryPolicy{Idempotent: []string{"subtract"}},
		HedgeAfter: 20 * time.Millisecond,
	})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	var diff int
	err = p.Call(ctx, "subtract", []int{42, 23}, &diff)
	fmt.Println(diff, err, p.Stats().Calls)
	// Output: 19 <nil> 1
}

// Send a batch through a pool. Its calls are all of idempotent methods, so
// the batch as a whole fails over to another endpoint on a transport
// error and is hedged after 20ms; a batch with a notification or another
// method would be sent exactly once.
func ExamplePool_NewBatch() {
	ctx := context.Background()
	var cs []*client.Client
	for range 3 {
		addr, _, stop := serveDemo()
		defer stop()
		c, err := client.Dial(ctx, "tcp", addr, &client.Options{Reconnect: &client.Reconnect{}})
		if err != nil {
			panic(err)
		}
		cs = append(cs, c)
	}
	p, err := client.NewPool(cs, &client.PoolOptions{
		Retry:      &client.RetryPolicy{Idempotent: []string{"subtract", "get_data"}},
		HedgeAfter: 20 * time.Millisecond,
	})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	b := p.NewBatch()
	var diff int
	sub := b.Call("subtract", []int{42, 23}, &diff)
	data := b.Call("get_data", nil, nil)
	err = b.Send(ctx)
	fmt.Println(diff, sub.Err(), string(data.Raw()), err, p.Stats().Batches)
	// Output: 19 <nil> ["hello",5] <nil> 1
}
