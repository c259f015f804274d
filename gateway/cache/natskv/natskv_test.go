package natskv_test

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/gateway/cache"
	"github.com/jetrpc/jetrpc/gateway/cache/natskv"
	"github.com/jetrpc/jetrpc/internal/natstest"
	"github.com/stretchr/testify/require"
)

func connect(t *testing.T, url string, opts *natskv.Options) *natskv.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := natskv.Connect(ctx, url, opts)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

func eventuallyHit(t *testing.T, s cache.Store, key, want string) {
	t.Helper()
	var got []byte
	require.Eventually(t, func() bool {
		var ok bool
		got, ok = s.Get(got[:0], []byte(key))
		return ok
	}, 10*time.Second, 5*time.Millisecond, "no hit for %q", key)
	require.Equal(t, want, string(got))
}

func miss(t *testing.T, s cache.Store, key string) {
	t.Helper()
	out, ok := s.Get([]byte("dst"), []byte(key))
	require.False(t, ok, key)
	require.Equal(t, "dst", string(out))
}

func TestShared(t *testing.T) {
	url := natstest.Start(t)
	a := connect(t, url, nil)
	b := connect(t, url, &natskv.Options{FrontBytes: -1}) // every Get asks the server
	long := cache.Key(nil, []byte("eth_getLogs"), []byte(`[{"fromBlock":"0x1","toBlock":"0x2","topics":["`+strings.Repeat("\x00.*> \\\"", 500)+`"]}]`))

	miss(t, b, "k1")
	a.Set([]byte("k1"), []byte(`{"number":"0x1"}`), time.Minute)
	a.Set(long, []byte(`[]`), time.Minute)
	eventuallyHit(t, b, "k1", `{"number":"0x1"}`)
	eventuallyHit(t, b, string(long), `[]`)
	eventuallyHit(t, a, "k1", `{"number":"0x1"}`)
	miss(t, b, "k2")

	// b's Set is a hit through a new replica (front cache on: it keeps it).
	b.Set([]byte("k2"), []byte(`"0x539"`), time.Minute)
	c := connect(t, url, nil)
	eventuallyHit(t, c, "k2", `"0x539"`)
	eventuallyHit(t, c, "k2", `"0x539"`)

	// A second Set replaces the entry (the old one may be read until the
	// new one is stored).
	a.Set([]byte("k1"), []byte(`"two"`), time.Minute)
	require.Eventually(t, func() bool {
		v, _ := b.Get(nil, []byte("k1"))
		return string(v) == `"two"`
	}, 10*time.Second, 5*time.Millisecond)
}

func TestExpiry(t *testing.T) {
	url := natstest.Start(t)
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	a := connect(t, url, &natskv.Options{Now: clock, MaxAge: time.Hour})
	b := connect(t, url, &natskv.Options{Now: clock, FrontBytes: -1})
	a.Set([]byte("short"), []byte("1"), time.Second)
	a.Set([]byte("long"), []byte("2"), time.Minute)
	a.Set([]byte("capped"), []byte("3"), 48*time.Hour) // cut to MaxAge
	eventuallyHit(t, b, "short", "1")
	eventuallyHit(t, b, "long", "2")
	eventuallyHit(t, b, "capped", "3")

	now.Add(int64(time.Second))
	miss(t, a, "short") // the front cache's copy expired too
	miss(t, b, "short")
	eventuallyHit(t, a, "long", "2")
	now.Add(int64(time.Minute))
	miss(t, a, "long")
	miss(t, b, "long")
	eventuallyHit(t, b, "capped", "3")
	now.Add(int64(time.Hour))
	miss(t, b, "capped")

	// The bucket's own MaxAge removes entries from the server.
	c := connect(t, url, &natskv.Options{Bucket: "short_lived", MaxAge: time.Second, FrontBytes: -1})
	c.Set([]byte("k"), []byte("v"), time.Hour)
	eventuallyHit(t, c, "k", "v")
	require.Eventually(t, func() bool { _, ok := c.Get(nil, []byte("k")); return !ok }, 10*time.Second, 50*time.Millisecond)
}

// cutter forwards TCP connections to a NATS server until it is cut.
type cutter struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  []net.Conn
	wg     sync.WaitGroup
}

func newCutter(t *testing.T, target string) *cutter {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	c := &cutter{ln: ln, target: target}
	c.wg.Add(1)
	go c.accept()
	t.Cleanup(func() { ln.Close(); c.set(true); c.wg.Wait() })
	return c
}

func (c *cutter) accept() {
	defer c.wg.Done()
	for {
		in, err := c.ln.Accept()
		if err != nil {
			return
		}
		c.mu.Lock()
		if c.down {
			c.mu.Unlock()
			in.Close()
			continue
		}
		out, err := net.DialTimeout("tcp", c.target, 5*time.Second)
		if err != nil {
			c.mu.Unlock()
			in.Close()
			continue
		}
		c.conns = append(c.conns, in, out)
		c.wg.Add(2)
		go func() { defer c.wg.Done(); io.Copy(out, in); out.Close() }()
		go func() { defer c.wg.Done(); io.Copy(in, out); in.Close() }()
		c.mu.Unlock()
	}
}

// set cuts (down) or restores the link.
func (c *cutter) set(down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = down
	if down {
		for _, conn := range c.conns {
			conn.Close()
		}
		c.conns = nil
	}
}

func TestOutage(t *testing.T) {
	url := natstest.Start(t)
	link := newCutter(t, strings.TrimPrefix(url, "nats://"))
	other := connect(t, url, nil)
	s := connect(t, "nats://"+link.ln.Addr().String(), &natskv.Options{FrontBytes: -1})
	s.Set([]byte("before"), []byte("1"), time.Hour)
	eventuallyHit(t, s, "before", "1")

	link.set(true)
	// Misses, quickly, and Set does nothing visible; nothing panics or blocks.
	start := time.Now()
	for range 100 {
		if _, ok := s.Get(nil, []byte("before")); ok {
			// The client may not have seen the cut yet: a hit is the stale
			// connection's last word, never an error.
			continue
		}
		s.Set([]byte("during"), []byte("2"), time.Hour)
	}
	require.Eventually(t, func() bool { _, ok := s.Get(nil, []byte("before")); return !ok }, 5*time.Second, 10*time.Millisecond)
	require.Less(t, time.Since(start), 10*time.Second)
	miss(t, s, "during")

	// Meanwhile the other replica goes on.
	other.Set([]byte("other"), []byte("3"), time.Hour)
	eventuallyHit(t, other, "other", "3")

	// Restored: the store reconnects by itself and hits again.
	link.set(false)
	eventuallyHit(t, s, "before", "1")
	eventuallyHit(t, s, "other", "3")
}

func TestBadURL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, err = natskv.Connect(ctx, "nats://"+addr, nil)
	require.Error(t, err)
}

// TestFullBucket: past MaxBytes the oldest entries go and new ones are kept.
func TestFullBucket(t *testing.T) {
	url := natstest.Start(t)
	s := connect(t, url, &natskv.Options{Bucket: "small", MaxBytes: 64 << 10, FrontBytes: -1})
	val := []byte(strings.Repeat("x", 1000))
	for i := range 300 {
		s.Set([]byte("k"+strconv.Itoa(i)), val, time.Hour)
	}
	eventuallyHit(t, s, "k299", string(val))
	miss(t, s, "k0")
}
