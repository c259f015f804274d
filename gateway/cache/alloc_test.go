//go:build !race

package cache_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/gateway/cache"
)

func TestMemoryAllocs(t *testing.T) {
	m := cache.NewMemory(&cache.MemoryOptions{MaxBytes: 1 << 20, Shards: 4})
	keys := make([][]byte, 20000) // several times what fits: the ring wraps
	for i := range keys {
		keys[i] = cache.Key(nil, []byte("eth_getBlockByNumber"), []byte(`["0x`+strconv.FormatInt(int64(i), 16)+`",false]`))
	}
	val := make([]byte, 200)
	for _, k := range keys {
		m.Set(k, val, time.Hour)
	}
	hot := keys[len(keys)-1]
	dst := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(1000, func() {
		if _, ok := m.Get(dst[:0], hot); !ok {
			t.Fatal("miss")
		}
	}); n != 0 {
		t.Errorf("Get hit: %v allocs, want 0", n)
	}
	if n := testing.AllocsPerRun(1000, func() { m.Get(dst[:0], []byte("absent")) }); n != 0 {
		t.Errorf("Get miss: %v allocs, want 0", n)
	}
	i := 0
	if n := testing.AllocsPerRun(10000, func() {
		m.Set(keys[i%len(keys)], val, time.Hour) // evicts as it goes
		i++
	}); n != 0 {
		t.Errorf("Set into a warm cache: %v allocs, want 0", n)
	}
	var kb []byte
	if n := testing.AllocsPerRun(1000, func() {
		kb = cache.Key(kb[:0], []byte("eth_chainId"), []byte("[]"))
	}); n != 0 {
		t.Errorf("Key: %v allocs, want 0", n)
	}
}
