package client_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/frame"
)

// prompt is how soon a cancelled call must return; the calls cancelled here
// would otherwise take 2 s.
const prompt = 1500 * time.Millisecond

func TestCancel(t *testing.T) {
	eachTransport(t, func(t *testing.T, c *client.Client) {
		f := func(ctx context.Context, want error) {
			t.Helper()
			start := time.Now()
			_, err := c.CallRaw(ctx, nil, "sleep", []byte(`[2000]`))
			if !errors.Is(err, want) {
				t.Errorf("sleep 2000: %v, want %v", err, want)
			}
			if d := time.Since(start); d > prompt {
				t.Errorf("cancelled call returned after %v", d)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		f(ctx, context.Canceled)
		ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
		f(ctx, context.DeadlineExceeded)
		cancel()
		ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		f(ctx, context.DeadlineExceeded) // ended before the call
		cancel()

		// The client keeps working.
		var r int
		if err := c.Call(context.Background(), "subtract", []int{5, 2}, &r); err != nil || r != 3 {
			t.Errorf("call after cancellations = %d, %v", r, err)
		}
	})
}

func TestBatchCancel(t *testing.T) {
	eachTransport(t, func(t *testing.T, c *client.Client) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		b := c.NewBatch()
		fast := b.Call("subtract", []int{2, 1}, nil)
		slow := b.Call("sleep", []int{2000}, nil)
		start := time.Now()
		if err := b.Send(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Send: %v, want DeadlineExceeded", err)
		}
		if d := time.Since(start); d > prompt {
			t.Errorf("cancelled batch returned after %v", d)
		}
		if !errors.Is(slow.Err(), context.DeadlineExceeded) {
			t.Errorf("slow call: %v", slow.Err())
		}
		// The fast call may or may not have been answered before the
		// deadline (HTTP answers the batch as a whole).
		if fast.Err() == nil && string(fast.Raw()) != "1" {
			t.Errorf("fast call = %s", fast.Raw())
		}
		if got, err := c.CallRaw(context.Background(), nil, "subtract", []byte(`[2,1]`)); err != nil || string(got) != "1" {
			t.Errorf("call after a cancelled batch = %s, %v", got, err)
		}
	})
}

// pendingCalls starts n sleep calls and returns their errors as they end.
func pendingCalls(c *client.Client, n int) <-chan error {
	errs := make(chan error, n)
	for range n {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			_, err := c.CallRaw(ctx, nil, "sleep", []byte(`[5000]`))
			errs <- err
		}()
	}
	return errs
}

// expectErrors checks that n calls end with an error, none with a result,
// none waiting for its context.
func expectErrors(t *testing.T, errs <-chan error, n int, is error) {
	t.Helper()
	timeout := time.After(testTimeout / 2)
	for range n {
		select {
		case err := <-errs:
			if err == nil {
				t.Error("a pending call succeeded")
			} else if is != nil && !errors.Is(err, is) {
				t.Errorf("pending call: %v, want %v", err, is)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("pending call waited for its context: %v", err)
			}
		case <-timeout:
			t.Fatal("a pending call hangs")
		}
	}
}

// waitPending waits until the server is surely running the calls.
func waitPending() { time.Sleep(100 * time.Millisecond) }

func TestServerShutdown(t *testing.T) {
	const n = 20
	t.Run("tcp", func(t *testing.T) {
		checkGoroutines(t)
		s := startTCP(t)
		c := dialTCP(t, s.addr, nil)
		errs := pendingCalls(c, n)
		waitPending()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		s.Shutdown(ctx) // gives up waiting: cancels the handlers, closes the connections
		expectErrors(t, errs, n, nil)
		if _, err := c.CallRaw(context.Background(), nil, "subtract", []byte(`[2,1]`)); !errors.Is(err, client.ErrClosed) {
			t.Errorf("call after shutdown: %v, want ErrClosed", err)
		}
	})
	t.Run("http", func(t *testing.T) {
		checkGoroutines(t)
		s := startHTTP(t)
		c, err := client.DialHTTP(s.url, testOptions(nil))
		if err != nil {
			t.Fatal(err)
		}
		closeOnCleanup(t, c)
		errs := pendingCalls(c, n)
		waitPending()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		s.Shutdown(ctx)
		expectErrors(t, errs, n, nil)
	})
	t.Run("stdio-killed", func(t *testing.T) {
		checkGoroutines(t)
		c, cmd := startStdio(t, frame.Header, nil)
		errs := pendingCalls(c, n)
		waitPending()
		cmd.Process.Kill() // the server goes away
		expectErrors(t, errs, n, client.ErrClosed)
	})
}

func TestClosePending(t *testing.T) {
	eachTransport(t, func(t *testing.T, c *client.Client) {
		const n = 20
		errs := pendingCalls(c, n)
		waitPending()
		c.Close()
		expectErrors(t, errs, n, client.ErrClosed)
		if _, err := c.CallRaw(context.Background(), nil, "subtract", []byte(`[2,1]`)); !errors.Is(err, client.ErrClosed) {
			t.Errorf("call after Close: %v, want ErrClosed", err)
		}
		if err := c.Notify(context.Background(), "update", nil); !errors.Is(err, client.ErrClosed) {
			t.Errorf("notify after Close: %v, want ErrClosed", err)
		}
		b := c.NewBatch()
		bc := b.Call("get_data", nil, nil)
		if err := b.Send(context.Background()); !errors.Is(err, client.ErrClosed) || !errors.Is(bc.Err(), client.ErrClosed) {
			t.Errorf("batch after Close: %v, %v", err, bc.Err())
		}
	})
}

// TestCloseRace closes a client while many goroutines call: every call
// returns (a result or an error), nothing panics or races.
func TestCloseRace(t *testing.T) {
	eachTransport(t, func(t *testing.T, c *client.Client) {
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				for range 20 {
					if _, err := c.CallRaw(context.Background(), nil, "subtract", []byte(`[2,1]`)); err != nil {
						if !errors.Is(err, client.ErrClosed) {
							t.Errorf("call during Close: %v", err)
						}
						return
					}
				}
			})
		}
		time.Sleep(time.Millisecond)
		c.Close()
		wg.Wait()
	})
}
