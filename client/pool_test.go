package client_test

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// poolBackend counts what the servers of a pool test received: the
// params of every "note" call (not idempotent), and the "overloaded"
// calls (idempotent, always -32005).
type poolBackend struct {
	mu         sync.Mutex
	notes      map[string]int
	overloaded atomic.Int64
}

func (b *poolBackend) engine(t testing.TB) *dispatch.Engine {
	e := newEngine(t)
	e.Register("note", dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		b.mu.Lock()
		b.notes[string(params)]++
		b.mu.Unlock()
		return append(dst, "1"...), nil
	}))
	e.Register("overloaded", dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		b.overloaded.Add(1)
		return dst, dispatch.NewError(-32005, "Limit exceeded", nil)
	}))
	return e
}

// startPool starts n killable TCP servers of b and a pool over them.
func startPool(t *testing.T, b *poolBackend, n int, addrs []string, popts *client.PoolOptions) (*client.Pool, []*killable) {
	t.Helper()
	var ks []*killable
	if addrs == nil {
		for range n {
			k := &killable{t: t, addr: "127.0.0.1:0", eng: b.engine}
			k.start()
			t.Cleanup(k.kill)
			ks = append(ks, k)
			addrs = append(addrs, k.addr)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var cs []*client.Client
	for _, a := range addrs {
		c, err := client.Dial(ctx, "tcp", a, testOptions(&client.Options{
			Reconnect: &client.Reconnect{MinDelay: 5 * time.Millisecond, MaxDelay: 50 * time.Millisecond}}))
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	p, err := client.NewPool(cs, popts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, ks
}

// TestPoolFailover: three endpoints, one killed under load (and started
// again): no idempotent call fails, and no "note" call (not idempotent)
// reaches a server twice.
func TestPoolFailover(t *testing.T) {
	checkGoroutines(t)
	b := &poolBackend{notes: map[string]int{}}
	p, ks := startPool(t, b, 3, nil, &client.PoolOptions{
		Retry: &client.RetryPolicy{Idempotent: []string{"subtract", "sleep"}, MaxAttempts: 3}})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var idemOK, idemFail, notesOK, notesFailed atomic.Int64
	var seq atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dst := make([]byte, 0, 64)
			var params []byte
			for {
				select {
				case <-stop:
					return
				default:
				}
				if g%4 != 0 {
					method, params := "subtract", []byte(`[42,23]`)
					if g%4 == 1 {
						method, params = "sleep", []byte(`[3]`) // some in flight when the server dies
					}
					if _, err := p.CallRaw(ctx, dst[:0], method, params); err != nil {
						idemFail.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
					} else {
						idemOK.Add(1)
					}
					continue
				}
				params = strconv.AppendInt(append(params[:0], '['), seq.Add(1), 10)
				params = append(params, ']')
				if _, err := p.CallRaw(ctx, dst[:0], "note", params); err != nil {
					notesFailed.Add(1)
				} else {
					notesOK.Add(1)
				}
			}
		}()
	}
	time.Sleep(150 * time.Millisecond)
	ks[1].kill()
	time.Sleep(150 * time.Millisecond)
	ks[1].start()
	time.Sleep(150 * time.Millisecond)
	close(stop)
	wg.Wait()
	st := p.Stats()
	t.Logf("idempotent ok %d failed %d; notes ok %d failed %d; stats %+v", idemOK.Load(), idemFail.Load(),
		notesOK.Load(), notesFailed.Load(), st)
	if idemFail.Load() != 0 {
		t.Errorf("%d idempotent calls failed (%v), want 0", idemFail.Load(), firstErr.Load())
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for params, n := range b.notes {
		if n != 1 {
			t.Errorf("note %s reached the servers %d times", params, n)
		}
	}
	if int64(len(b.notes)) < notesOK.Load() {
		t.Errorf("%d notes answered, %d received", notesOK.Load(), len(b.notes))
	}
}

// TestPoolRetryBudget: with every endpoint failing (-32005, a code the
// policy retries), the extra attempts stay within the budget: at most
// Budget x calls + BudgetBurst.
func TestPoolRetryBudget(t *testing.T) {
	checkGoroutines(t)
	b := &poolBackend{notes: map[string]int{}}
	const calls, ratio, burst = 2000, 0.1, 5
	p, _ := startPool(t, b, 3, nil, &client.PoolOptions{Retry: &client.RetryPolicy{
		Idempotent: []string{"overloaded"}, Codes: []int{-32005}, MaxAttempts: 3, Budget: ratio, BudgetBurst: burst}})
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls / 4 {
				_, err := p.CallRaw(ctx, nil, "overloaded", nil)
				var re *encode.Error
				if !errors.As(err, &re) || re.Code != -32005 {
					t.Errorf("call: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	extra := b.overloaded.Load() - calls
	limit := int64(ratio*calls) + burst
	t.Logf("%d calls, %d attempts on the servers: %d extra (limit %d); stats retries %d", calls, b.overloaded.Load(), extra, limit, p.Stats().Retries)
	if extra > limit || extra < limit/2 {
		t.Errorf("%d extra attempts, want at most %d (and some)", extra, limit)
	}
}

// delayProxy forwards TCP connections to backend, delaying one chunk of
// the answers in every by delay (the chunks after it wait behind it, as
// behind a stalled replica).
func delayProxy(t *testing.T, backend string, delay time.Duration, every int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", backend)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, s)
			mu.Unlock()
			wg.Add(3)
			go func() { defer wg.Done(); io.Copy(s, c); s.Close() }()
			type chunk struct {
				b  []byte
				at time.Time
			}
			ch := make(chan chunk, 1024)
			go func() {
				defer wg.Done()
				defer close(ch)
				for i := 1; ; i++ {
					buf := make([]byte, 32<<10)
					n, err := s.Read(buf)
					if n > 0 {
						at := time.Now()
						if i%every == 0 {
							at = at.Add(delay)
						}
						ch <- chunk{buf[:n], at}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() {
				defer wg.Done()
				for k := range ch {
					time.Sleep(time.Until(k.at))
					if _, err := c.Write(k.b); err != nil {
						break
					}
				}
				c.Close()
				for range ch {
				}
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// p99 runs calls of subtract on p from 8 goroutines and returns the
// latencies' 99th percentile.
func p99(t *testing.T, p *client.Pool, n int) time.Duration {
	t.Helper()
	ctx := context.Background()
	lat := make([]time.Duration, 0, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dst := make([]byte, 0, 64)
			mine := make([]time.Duration, 0, n/8)
			for range n / 8 {
				start := time.Now()
				if _, err := p.CallRaw(ctx, dst[:0], "subtract", []byte(`[42,23]`)); err != nil {
					t.Error(err)
					return
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	return lat[len(lat)*99/100]
}

// TestPoolHedging: one endpoint of three is slow (a proxy holds one read
// of its answers in 20 for 150ms, and the answers behind it). Without
// hedging the p99 shows it; with hedging after 15ms it is at most the
// hedge delay plus twice the healthy pool's p99.
func TestPoolHedging(t *testing.T) {
	checkGoroutines(t)
	b := &poolBackend{notes: map[string]int{}}
	var addrs []string
	for range 3 {
		k := &killable{t: t, addr: "127.0.0.1:0", eng: b.engine}
		k.start()
		t.Cleanup(k.kill)
		addrs = append(addrs, k.addr)
	}
	const delay, hedge = 150 * time.Millisecond, 15 * time.Millisecond
	idem := &client.RetryPolicy{Idempotent: []string{"subtract"}, Budget: 0.5}
	healthy, _ := startPool(t, b, 3, addrs, &client.PoolOptions{Retry: idem})
	const n = 4000
	p99(t, healthy, 800) // warm up
	hp := p99(t, healthy, n)
	// The balancer scores endpoints by their recent latency, so a run can
	// keep every call off the slow upstream after its first delay: then no
	// call needed a hedge, and the run shows nothing. Such a run is tried
	// again with fresh pools, three times at most.
	for try := 1; ; try++ {
		slowAddrs := []string{addrs[0], addrs[1], delayProxy(t, addrs[2], delay, 20)}
		slow, _ := startPool(t, b, 3, slowAddrs, &client.PoolOptions{Retry: idem})
		hedged, _ := startPool(t, b, 3, slowAddrs, &client.PoolOptions{Retry: idem, HedgeAfter: hedge})
		sp := p99(t, slow, n)
		hd := p99(t, hedged, n)
		st := hedged.Stats()
		t.Logf("p99: healthy %v, one slow %v, one slow hedged after %v: %v (hedges %d, won %d)", hp, sp, hedge, hd, st.Hedges, st.HedgeWins)
		if limit := hedge + 2*max(hp, 2*time.Millisecond); hd > limit {
			t.Errorf("hedged p99 %v, want at most %v", hd, limit)
		}
		if st.Hedges > 0 {
			return
		}
		if try == 3 {
			t.Fatal("no hedge was sent in 3 runs")
		}
	}
}
