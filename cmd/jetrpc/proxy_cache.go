package main

// NOTE: jetrpc proxy's cache flags (--cache NAME=TTL, --cache-policy,
// --cache-nats) and what they build: a gateway/cache Store and Policy.
// proxy.go defines them on its flag set and calls build once its
// upstreams are up.

import (
	"context"
	"errors"
	"flag"

	"github.com/jetrpc/jetrpc/gateway/cache"
)

// proxyCacheFlags are the cache flags of jetrpc proxy.
type proxyCacheFlags struct {
	rules  []string // --cache NAME=TTL, as given
	policy string   // --cache-policy: "" or "ethereum"
	nats   string   // --cache-nats URL: share the cache through JetStream KV
}

// upstreamCall calls method on the gateway's default upstream group and
// appends the raw result to dst (the ethereum policy follows the finalized
// block with it).
type upstreamCall func(ctx context.Context, dst []byte, method string, params []byte) ([]byte, error)

func (c *proxyCacheFlags) define(fs *flag.FlagSet) {
	fs.Func("cache", "answer `NAME=TTL` from the cache (repeatable; NAME* is a prefix)", func(v string) error {
		c.rules = append(c.rules, v)
		return nil
	})
	fs.StringVar(&c.policy, "cache-policy", "", "built-in cache `POLICY`: ethereum")
	fs.StringVar(&c.nats, "cache-nats", "", "share the cache between replicas through NATS JetStream at `URL`")
}

// enabled reports whether any cache flag was given.
func (c *proxyCacheFlags) enabled() bool {
	return len(c.rules) > 0 || c.policy != "" || c.nats != ""
}

// build makes the Store and Policy the flags ask for; stop releases them
// (the NATS connection, the finality follower). With no cache flag it
// returns nils and a no-op stop.
func (c *proxyCacheFlags) build(ctx context.Context, call upstreamCall) (store cache.Store, policy cache.Policy, stop func(), err error) {
	if !c.enabled() {
		return nil, nil, func() {}, nil
	}
	return nil, nil, func() {}, errors.New("the gateway cache is not built yet")
}
