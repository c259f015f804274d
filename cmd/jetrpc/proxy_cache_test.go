package main

import (
	"context"
	"errors"
	"flag"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/gateway/cache"
	"github.com/jetrpc/jetrpc/gateway/cache/natskv"
	"github.com/jetrpc/jetrpc/internal/natstest"
	"github.com/stretchr/testify/require"
)

// cacheFlags parses args as jetrpc proxy's cache flags.
func cacheFlags(t *testing.T, args ...string) *proxyCacheFlags {
	t.Helper()
	var c proxyCacheFlags
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	c.define(fs)
	require.NoError(t, fs.Parse(args))
	return &c
}

// finalizedAt is an upstream whose finalized block is n.
func finalizedAt(n *atomic.Int64, calls *atomic.Int64) upstreamCall {
	return func(ctx context.Context, dst []byte, method string, params []byte) ([]byte, error) {
		calls.Add(1)
		if method != "eth_getBlockByNumber" {
			return dst, errors.New("unexpected " + method)
		}
		dst = append(dst, `{"number":"0x`...)
		dst = strconv.AppendInt(dst, n.Load(), 16)
		return append(dst, `"}`...), nil
	}
}

func TestProxyCacheBuildErrors(t *testing.T) {
	f := func(want string, args ...string) {
		t.Helper()
		_, _, stop, err := cacheFlags(t, args...).build(context.Background(), nil)
		require.EqualError(t, err, want)
		stop()
	}
	f(`--cache: cache rule "eth_chainId": want NAME=TTL`, "--cache", "eth_chainId=1h", "--cache", "eth_chainId")
	f(`--cache: cache rule "eth_x=soon": bad TTL "soon" (want a duration such as 30s or 5m)`, "--cache", "eth_x=soon")
	f(`--cache-policy: unknown policy "bitcoin" (want ethereum)`, "--cache-policy", "bitcoin")
	f("--cache-nats: nothing is cacheable without --cache NAME=TTL or --cache-policy ethereum", "--cache-nats", "nats://127.0.0.1:1")

	_, _, stop, err := cacheFlags(t, "--cache", "eth_chainId=1h", "--cache-nats", "nats://127.0.0.1:1").build(context.Background(), nil)
	require.ErrorContains(t, err, "--cache-nats nats://127.0.0.1:1: ")
	stop()

	store, policy, stop, err := cacheFlags(t).build(context.Background(), nil)
	require.NoError(t, err)
	require.Nil(t, store)
	require.Nil(t, policy)
	stop()
}

func TestProxyCacheBuild(t *testing.T) {
	var fin, calls atomic.Int64
	fin.Store(0x100)
	store, policy, stop, err := cacheFlags(t, "--cache", "eth_blockNumber=2s", "--cache", "debug_*=1m", "--cache-policy", "ethereum").
		build(context.Background(), finalizedAt(&fin, &calls))
	require.NoError(t, err)
	require.IsType(t, &cache.Memory{}, store)

	ttl := func(method, params string) time.Duration {
		d, _ := policy.TTL([]byte(method), []byte(params))
		return d
	}
	require.Equal(t, 2*time.Second, ttl("eth_blockNumber", "[]"))
	require.Equal(t, time.Minute, ttl("debug_traceBlockByNumber", `["latest"]`))
	require.Equal(t, cache.DefaultEthereumTTL, ttl("eth_chainId", "[]"))
	// The follower polled the upstream at once.
	require.Eventually(t, func() bool { return ttl("eth_getBlockByNumber", `["0x100",false]`) != 0 }, 5*time.Second, 5*time.Millisecond)
	require.Zero(t, ttl("eth_getBlockByNumber", `["0x101",false]`))
	require.False(t, policy.Keep([]byte("eth_getBlockByNumber"), []byte(`["0x100",false]`), []byte("null")))

	key := cache.Key(nil, []byte("eth_chainId"), []byte("[]"))
	store.Set(key, []byte(`"0x1"`), time.Minute)
	got, ok := store.Get(nil, key)
	require.True(t, ok)
	require.Equal(t, `"0x1"`, string(got))

	stop()
	n := calls.Load()
	require.Positive(t, n)
	time.Sleep(50 * time.Millisecond)
	require.Equal(t, n, calls.Load(), "the follower polled after stop")
}

func TestProxyCacheBuildNATS(t *testing.T) {
	url := natstest.Start(t)
	build := func() cache.Store {
		store, policy, stop, err := cacheFlags(t, "--cache", "eth_chainId=1h", "--cache-nats", url).build(context.Background(), nil)
		require.NoError(t, err)
		t.Cleanup(stop)
		require.IsType(t, &natskv.Store{}, store)
		_, ok := policy.TTL([]byte("eth_chainId"), nil)
		require.True(t, ok)
		return store
	}
	a, b := build(), build() // two replicas
	a.Set([]byte("k"), []byte(`"0x1"`), time.Minute)
	require.Eventually(t, func() bool { _, ok := b.Get(nil, []byte("k")); return ok }, 10*time.Second, 5*time.Millisecond)
}
