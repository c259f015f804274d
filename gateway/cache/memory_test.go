package cache_test

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/gateway/cache"
	"github.com/stretchr/testify/require"
)

// clock is a settable time for TTL tests.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func get(s cache.Store, key string) (string, bool) {
	v, ok := s.Get(nil, []byte(key))
	return string(v), ok
}

func TestMemoryGetSet(t *testing.T) {
	c := newClock()
	m := cache.NewMemory(&cache.MemoryOptions{Now: c.now})
	f := func(key, want string, wantOK bool) {
		t.Helper()
		got, ok := get(m, key)
		require.Equal(t, wantOK, ok, key)
		require.Equal(t, want, got, key)
	}
	f("a", "", false)
	m.Set([]byte("a"), []byte(`"one"`), time.Second)
	m.Set([]byte("b"), []byte(`{"x":[1,2]}`), 3*time.Second)
	m.Set([]byte("e"), nil, time.Second)  // an empty result is a result
	m.Set([]byte("z"), []byte("zero"), 0) // no TTL: not kept
	f("a", `"one"`, true)
	f("b", `{"x":[1,2]}`, true)
	f("e", "", true)
	f("z", "", false)
	f("ab", "", false)

	// Get appends to dst.
	out, ok := m.Get([]byte("prefix:"), []byte("a"))
	require.True(t, ok)
	require.Equal(t, `prefix:"one"`, string(out))
	out, ok = m.Get([]byte("prefix:"), []byte("nope"))
	require.False(t, ok)
	require.Equal(t, "prefix:", string(out))

	// A second Set replaces the answer.
	m.Set([]byte("a"), []byte(`"two"`), time.Second)
	f("a", `"two"`, true)

	// Expiry: never returned once the TTL has passed.
	c.advance(time.Second - 1)
	f("a", `"two"`, true)
	c.advance(1)
	f("a", "", false)
	f("e", "", false)
	f("b", `{"x":[1,2]}`, true)
	c.advance(2 * time.Second)
	f("b", "", false)

	// Set copies key and result.
	k, v := []byte("k"), []byte("vvv")
	m.Set(k, v, time.Minute)
	k[0], v[0] = 'x', 'x'
	f("k", "vvv", true)
}

func TestMemoryBudget(t *testing.T) {
	const budget = 64 << 10
	m := cache.NewMemory(&cache.MemoryOptions{MaxBytes: budget, Shards: 4})
	val := make([]byte, 100)
	const n = 5000 // about 10x the budget
	for i := range n {
		m.Set([]byte("key"+strconv.Itoa(i)), val, time.Hour)
	}
	// At most what fits: 4 shards of 16 KiB, 24+7+100 bytes an entry.
	require.LessOrEqual(t, m.Len(), budget/(24+7+100)+4)
	// The newest are kept, the oldest evicted (FIFO).
	kept := 0
	for i := n - 50; i < n; i++ {
		if _, ok := get(m, "key"+strconv.Itoa(i)); ok {
			kept++
		}
	}
	require.Equal(t, 50, kept)
	for i := range 100 {
		_, ok := get(m, "key"+strconv.Itoa(i))
		require.False(t, ok, i)
	}
	// Every entry the index holds is still readable and intact.
	hits := 0
	for i := range n {
		if v, ok := get(m, "key"+strconv.Itoa(i)); ok {
			require.Equal(t, string(val), v)
			hits++
		}
	}
	require.Equal(t, m.Len(), hits)

	// An entry larger than a shard's share is not kept; others are not hurt.
	m.Set([]byte("big"), make([]byte, budget/4), time.Hour)
	_, ok := get(m, "big")
	require.False(t, ok)
	_, ok = get(m, "key"+strconv.Itoa(n-1))
	require.True(t, ok)
}

// TestMemoryMixedSizes fills a small store with entries of many sizes so
// that the ring wraps at every offset, and checks every hit is exact.
func TestMemoryMixedSizes(t *testing.T) {
	m := cache.NewMemory(&cache.MemoryOptions{MaxBytes: 8 << 10, Shards: 1})
	want := map[string]string{}
	for i := range 3000 {
		k := "k" + strconv.Itoa(i%700)
		v := make([]byte, (i*37)%900)
		for j := range v {
			v[j] = byte('a' + (i+j)%26)
		}
		m.Set([]byte(k), v, time.Hour)
		want[k] = string(v)
		if got, ok := get(m, k); !ok || got != string(v) {
			t.Fatalf("%d: the entry just set is not there (ok %v)", i, ok)
		}
	}
	hits := 0
	for k, v := range want {
		if got, ok := get(m, k); ok {
			require.Equal(t, v, got, k)
			hits++
		}
	}
	require.Positive(t, hits)
	require.Equal(t, m.Len(), hits)
}

func TestMemoryConcurrent(t *testing.T) {
	m := cache.NewMemory(&cache.MemoryOptions{MaxBytes: 32 << 10, Shards: 2})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var dst []byte
			for i := range 3000 {
				k := []byte("k" + strconv.Itoa((i*7+g)%500))
				v := []byte("v" + string(k))
				if i%3 == 0 {
					m.Set(k, v, time.Hour)
					continue
				}
				var ok bool
				if dst, ok = m.Get(dst[:0], k); ok && string(dst) != string(v) {
					t.Errorf("%s: got %q", k, dst)
					return
				}
			}
		}()
	}
	wg.Wait()
}
