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

func TestPolicyAllocs(t *testing.T) {
	fin := cache.NewFinality(nil, nil)
	fin.Set(1000)
	rules, err := cache.ParseRules([]string{"eth_blockNumber=1s", "debug_*=1m"})
	if err != nil {
		t.Fatal(err)
	}
	p := cache.Chain{rules, cache.NewEthereum(fin, nil)}
	calls := []struct{ method, params, result string }{
		{"eth_getBlockByNumber", `["0x10",false]`, `{"number":"0x10"}`},
		{"eth_getBlockByNumber", `["latest",false]`, `{}`},
		{"eth_getTransactionReceipt", `["0xb903239f8543d04b5dc1ba6579132b143087c68db1b2168786408fcbce568238"]`, `{"logs":[],"blockNumber":"0x3"}`},
		{"eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x2","topics":[null]}]`, `[]`},
		{"eth_getBalance", `["0x407d73d8a49eeb85d32cf465507dd71d507100c1",{"blockNumber":"0x1"}]`, `"0x0"`},
		{"eth_blockNumber", `[]`, `"0x1"`},
		{"debug_traceBlock", `[]`, `[]`},
		{"eth_sendRawTransaction", `["0x00"]`, `"0x1"`},
	}
	for _, c := range calls {
		m, params, result := []byte(c.method), []byte(c.params), []byte(c.result)
		if n := testing.AllocsPerRun(1000, func() {
			if _, ok := p.TTL(m, params); ok {
				p.Keep(m, params, result)
			}
		}); n != 0 {
			t.Errorf("%s %s: %v allocs, want 0", c.method, c.params, n)
		}
	}
}
