package cache_test

import (
	"context"
	"fmt"
	"time"

	"github.com/jetrpc/jetrpc/gateway/cache"
)

// A gateway's use of a Store and a Policy: ask the policy, look the call
// up, and keep the upstream's answer if the policy says so.
func Example() {
	store := cache.NewMemory(&cache.MemoryOptions{MaxBytes: 16 << 20})
	policy, err := cache.ParseRules([]string{"eth_chainId=1h", "web3_*=1m"})
	if err != nil {
		panic(err)
	}
	method, params := []byte("eth_chainId"), []byte("[]")
	var key, out []byte
	for range 2 {
		ttl, ok := policy.TTL(method, params)
		if !ok {
			break // forward, do not cache
		}
		key = cache.Key(key[:0], method, params)
		var hit bool
		if out, hit = store.Get(out[:0], key); hit {
			fmt.Printf("hit: %s\n", out)
			continue
		}
		result := []byte(`"0x1"`) // the upstream's answer
		fmt.Printf("miss: forwarded, got %s\n", result)
		if policy.Keep(method, params, result) {
			store.Set(key, result, ttl)
		}
	}
	// Output:
	// miss: forwarded, got "0x1"
	// hit: "0x1"
}

func ExampleParseRules() {
	_, err := cache.ParseRules([]string{"eth_getLogs=soon"})
	fmt.Println(err)
	// Output: cache rule "eth_getLogs=soon": bad TTL "soon" (want a duration such as 30s or 5m)
}

func ExampleNewEthereum() {
	fin := cache.NewFinality(nil, nil) // Start it with the upstream's call to follow the chain
	fin.Set(100)
	p := cache.NewEthereum(fin, nil)
	for _, params := range []string{`["0x64",false]`, `["0x65",false]`, `["latest",false]`} {
		_, ok := p.TTL([]byte("eth_getBlockByNumber"), []byte(params))
		fmt.Println(params, ok)
	}
	fmt.Println("keep null:", p.Keep([]byte("eth_getBlockByNumber"), nil, []byte("null")))
	// Output:
	// ["0x64",false] true
	// ["0x65",false] false
	// ["latest",false] false
	// keep null: false
}

func ExampleFinality() {
	// An upstream whose finalized block is 0x20 (client.(*Client).CallRaw in a real gateway).
	call := func(ctx context.Context, dst []byte, method string, params []byte) ([]byte, error) {
		return append(dst, `{"number":"0x20"}`...), nil
	}
	fin := cache.NewFinality(call, &cache.FinalityOptions{Interval: time.Second})
	fin.Start(context.Background())
	defer fin.Stop()
	for {
		if n, ok := fin.Block(); ok {
			fmt.Println("finalized:", n)
			return
		}
		time.Sleep(time.Millisecond)
	}
	// Output: finalized: 32
}
