package cache_test

import (
	"fmt"
	"time"

	"github.com/jetrpc/jetrpc/gateway/cache"
)

// A Peeker answers from what the process holds, never waiting: the
// gateway answers such hits on the connection's reading goroutine.
func ExamplePeeker() {
	var s cache.Store = cache.NewMemory(nil)
	key := cache.Key(nil, []byte("eth_chainId"), nil)
	s.Set(key, []byte(`"0x1"`), time.Minute)
	if p, ok := s.(cache.Peeker); ok {
		out, hit := p.Peek(nil, key)
		fmt.Println(string(out), hit)
	}
	// Output: "0x1" true
}
