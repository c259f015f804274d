package natskv_test

// The latency of a shared cache on an embedded NATS server over loopback:
// a hit in the front cache, a hit from the server (front off) beside the
// NATS client's own kv.Get of the same entry (the floor), and a Set.
//
//	go test -run '^$' -bench NATS -count 10 ./gateway/cache/natskv/

import (
	"context"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/gateway/cache"
	"github.com/jetrpc/jetrpc/gateway/cache/natskv"
	"github.com/jetrpc/jetrpc/internal/natstest"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func BenchmarkNATS(b *testing.B) {
	url := natstest.Start(b)
	ctx := context.Background()
	front, err := natskv.Connect(ctx, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer front.Close()
	server, err := natskv.Connect(ctx, url, &natskv.Options{FrontBytes: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer server.Close()
	key := cache.Key(nil, []byte("eth_getBlockByNumber"), []byte(`["0x10d4f1b",false]`))
	val := make([]byte, 600)
	front.Set(key, val, time.Hour)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := server.Get(nil, key); ok {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the entry never reached the server")
		}
		time.Sleep(time.Millisecond)
	}
	b.Run("op=hit-front", func(b *testing.B) {
		b.ReportAllocs()
		dst := make([]byte, 0, 1024)
		for b.Loop() {
			if _, ok := front.Get(dst[:0], key); !ok {
				b.Fatal("miss")
			}
		}
	})
	b.Run("op=hit-server", func(b *testing.B) {
		b.ReportAllocs()
		dst := make([]byte, 0, 1024)
		for b.Loop() {
			if _, ok := server.Get(dst[:0], key); !ok {
				b.Fatal("miss")
			}
		}
	})
	b.Run("op=kv.Get-floor", func(b *testing.B) {
		nc, err := nats.Connect(url)
		if err != nil {
			b.Fatal(err)
		}
		defer nc.Close()
		js, _ := jetstream.New(nc)
		kv, err := js.KeyValue(ctx, natskv.DefaultBucket)
		if err != nil {
			b.Fatal(err)
		}
		keys, err := kv.ListKeys(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var name string
		for k := range keys.Keys() {
			name = k
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := kv.Get(ctx, name); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=set", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			server.Set(key, val, time.Hour)
		}
		if err := server.Flush(ctx); err != nil {
			b.Fatal(err)
		}
	})
}
