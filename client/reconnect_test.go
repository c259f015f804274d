package client_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// killable is a demo server that can be killed and started again on the
// same address.
type killable struct {
	t    *testing.T
	addr string
	http bool
	eng  func(t testing.TB) *dispatch.Engine // nil: newEngine
	mu   sync.Mutex
	stop func()
}

func startKillable(t *testing.T, http bool) *killable {
	k := &killable{t: t, addr: "127.0.0.1:0", http: http}
	k.start()
	t.Cleanup(k.kill)
	return k
}

func (k *killable) start() {
	k.t.Helper()
	var ln net.Listener
	var err error
	for range 100 { // the port may take a moment to be free again
		if ln, err = net.Listen("tcp", k.addr); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		k.t.Fatal(err)
	}
	k.addr = ln.Addr().String()
	var srv interface {
		Serve(net.Listener) error
		Shutdown(context.Context) error
	}
	eng := newEngine
	if k.eng != nil {
		eng = k.eng
	}
	if k.http {
		srv = nethttp.New(eng(k.t), &netserver.Options{Logger: quiet})
	} else {
		srv = netserver.New(eng(k.t), &netserver.Options{Logger: quiet})
	}
	done := make(chan struct{})
	go func() { defer close(done); srv.Serve(ln) }()
	k.mu.Lock()
	k.stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	}
	k.mu.Unlock()
}

// kill stops the server at once: its connections close with calls in
// flight.
func (k *killable) kill() {
	k.mu.Lock()
	stop := k.stop
	k.stop = nil
	k.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// TestReconnectUnderLoad: the server is killed under load and started
// again on the same address. The client redials (the hook runs, the
// state goes Reconnecting then Connected), every idempotent call
// completes (the retry policy sends again those that were in flight),
// the others complete or fail with ErrConnectionLost, and nothing hangs.
func TestReconnectUnderLoad(t *testing.T) {
	for _, ws := range []bool{false, true} {
		name := map[bool]string{false: "tcp", true: "ws"}[ws]
		t.Run(name, func(t *testing.T) {
			checkGoroutines(t)
			k := startKillable(t, ws)
			var hooks atomic.Int32
			var states sync.Map
			opts := testOptions(&client.Options{
				Reconnect: &client.Reconnect{MinDelay: 5 * time.Millisecond, MaxDelay: 50 * time.Millisecond,
					OnReconnect: func(ctx context.Context, c *client.Client) {
						var r int // a re-subscription, on the new connection
						if err := c.Call(ctx, "subtract", []int{2, 1}, &r); err == nil && r == 1 {
							hooks.Add(1)
						}
					},
					OnState: func(s client.State) { states.Store(s, true) },
				},
				Retry: &client.RetryPolicy{Idempotent: []string{"subtract"}, MaxAttempts: 10, Budget: -1},
			})
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			var c *client.Client
			var err error
			if ws {
				c, err = client.DialWebSocket(ctx, "ws://"+k.addr+"/ws", opts)
			} else {
				c, err = client.Dial(ctx, "tcp", k.addr, opts)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var idemOK, idemFail, otherOK, otherLost, otherBad atomic.Int64
			var firstBad atomic.Value
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					dst := make([]byte, 0, 64)
					for {
						select {
						case <-stop:
							return
						default:
						}
						if g < 6 {
							_, err := c.CallRaw(ctx, dst[:0], "subtract", []byte(`[42,23]`))
							if err != nil {
								idemFail.Add(1)
								firstBad.CompareAndSwap(nil, err.Error())
							} else {
								idemOK.Add(1)
							}
							continue
						}
						_, err := c.CallRaw(ctx, dst[:0], "sleep", []byte(`[2]`)) // not idempotent
						switch {
						case err == nil:
							otherOK.Add(1)
						case errors.Is(err, client.ErrConnectionLost):
							otherLost.Add(1)
						default:
							otherBad.Add(1)
							firstBad.CompareAndSwap(nil, err.Error())
						}
					}
				}()
			}
			time.Sleep(100 * time.Millisecond)
			for range 2 {
				k.kill()
				time.Sleep(30 * time.Millisecond)
				k.start()
				deadline := time.Now().Add(testTimeout)
				for c.State() != client.Connected && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
				time.Sleep(100 * time.Millisecond)
			}
			close(stop)
			wg.Wait()
			t.Logf("idempotent ok %d failed %d; others ok %d lost %d other %d; hooks %d",
				idemOK.Load(), idemFail.Load(), otherOK.Load(), otherLost.Load(), otherBad.Load(), hooks.Load())
			if idemFail.Load() != 0 || otherBad.Load() != 0 {
				t.Errorf("idempotent calls failed: %d, others failed otherwise than ErrConnectionLost: %d (%v)",
					idemFail.Load(), otherBad.Load(), firstBad.Load())
			}
			if hooks.Load() != 2 {
				t.Errorf("OnReconnect ran %d times, want 2", hooks.Load())
			}
			if _, ok := states.Load(client.Reconnecting); !ok || c.State() != client.Connected {
				t.Errorf("state %v; Reconnecting seen: %v", c.State(), ok)
			}
			if idemOK.Load() == 0 || otherOK.Load() == 0 {
				t.Error("no load")
			}
		})
	}
}

// TestReconnectFailFast: while the server is away, calls fail at once
// with ErrDisconnected (FailFast); MaxAttempts used up closes the client.
func TestReconnectFailFast(t *testing.T) {
	checkGoroutines(t)
	k := startKillable(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := client.Dial(ctx, "tcp", k.addr, testOptions(&client.Options{
		Reconnect: &client.Reconnect{MinDelay: 20 * time.Millisecond, MaxDelay: 20 * time.Millisecond, MaxAttempts: 5, FailFast: true},
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k.kill()
	deadline := time.Now().Add(testTimeout)
	for c.State() == client.Connected && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	if _, err := c.CallRaw(ctx, nil, "subtract", []byte(`[1,1]`)); !errors.Is(err, client.ErrDisconnected) && !errors.Is(err, client.ErrClosed) {
		t.Errorf("call while disconnected: %v, want ErrDisconnected", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("FailFast took %v", d)
	}
	for c.State() != client.Closed && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := c.CallRaw(ctx, nil, "subtract", []byte(`[1,1]`)); !errors.Is(err, client.ErrClosed) || !errors.Is(err, client.ErrConnectionLost) {
		t.Errorf("after the attempts: %v, want ErrClosed and ErrConnectionLost", err)
	}
}

// TestReconnectWaits: without FailFast a call made while the server is
// away waits for the new connection; one whose context ends first returns
// its context's error.
func TestReconnectWaits(t *testing.T) {
	checkGoroutines(t)
	k := startKillable(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := client.Dial(ctx, "tcp", k.addr, testOptions(&client.Options{
		Reconnect: &client.Reconnect{MinDelay: 10 * time.Millisecond, MaxDelay: 20 * time.Millisecond},
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k.kill()
	// Until the client sees the connection drop, a call goes out on it
	// and fails ErrConnectionLost: wait for the redial to begin.
	deadline := time.Now().Add(testTimeout)
	for c.State() == client.Connected && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelShort()
	if _, err := c.CallRaw(short, nil, "subtract", []byte(`[1,1]`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("short call: %v", err)
	}
	go func() { time.Sleep(100 * time.Millisecond); k.start() }()
	if res, err := c.CallRaw(ctx, nil, "subtract", []byte(`[3,1]`)); err != nil || string(res) != "2" {
		t.Errorf("call across the outage: %s %v", res, err)
	}
}
