package natskv_test

import (
	"context"
	"time"

	"github.com/jetrpc/jetrpc/gateway/cache"
	"github.com/jetrpc/jetrpc/gateway/cache/natskv"
)

// Two gateway replicas that share their cache: each connects to the same
// NATS cluster; an answer one keeps is a hit on the other.
func ExampleConnect() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	store, err := natskv.Connect(ctx, "nats://127.0.0.1:4222", &natskv.Options{MaxAge: 10 * time.Minute})
	if err != nil {
		return // no NATS here: use cache.NewMemory instead
	}
	defer store.Close()
	key := cache.Key(nil, []byte("eth_chainId"), []byte("[]"))
	store.Set(key, []byte(`"0x1"`), time.Hour) // kept 10 minutes: MaxAge
	_, _ = store.Get(nil, key)
}
